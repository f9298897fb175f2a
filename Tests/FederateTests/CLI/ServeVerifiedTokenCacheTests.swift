import Federate
import Foundation
import Testing
@testable import FederateCLI

/// `federate serve`'s `"verified_token_cache"`: on by default, sized or turned off by the file,
/// and a bad value is `invalid_configuration` naming the setting.
@Suite struct ServeVerifiedTokenCacheTests {
    static func configuration(_ members: [String: JSONValue]) throws(FederateError) -> ServeConfiguration {
        try ServeConfiguration(json: JSONSerializer.bytes(.object(members)), environment: [:])
    }

    @Test func theCacheIsOnByDefaultAndTheFileSizesOrDisablesIt() throws {
        #expect(ServeConfiguration().verifiedTokenCache == .default)
        #expect(try Self.configuration([:]).verifiedTokenCache == .default)
        #expect(try Self.configuration(["verified_token_cache": true]).verifiedTokenCache == .default)
        let off = try Self.configuration(["verified_token_cache": false]).verifiedTokenCache
        #expect(off == .disabled && !off.isEnabled)
        let sized = try Self.configuration([
            "verified_token_cache": ["entries": 500, "max_bytes": 1_048_576, "max_token_bytes": 4096]
        ]).verifiedTokenCache
        #expect(sized == VerifiedTokenCacheConfiguration(maximumEntries: 500, maximumBytes: 1_048_576, maximumTokenBytes: 4096))
        #expect(try Self.configuration(["verified_token_cache": ["entries": 20_000]]).verifiedTokenCache.maximumEntries == 20_000)
    }

    @Test(arguments: [
        (JSONValue.string("yes"), "verified_token_cache is true, false or"),
        (.integer(100), "verified_token_cache is true, false or"),
        (["entries": 0], "verified_token_cache.entries is a whole number from 1"),
        (["entries": -5], "verified_token_cache.entries is a whole number from 1"),
        (["entries": 1.5], "verified_token_cache.entries is a whole number from 1"),
        (["entries": "100"], "verified_token_cache.entries is a whole number from 1"),
        (["entries": 20_000_000], "verified_token_cache.entries is a whole number from 1"),
        (["max_token_bytes": 100], "verified_token_cache.max_token_bytes is a whole number from 256"),
        (["max_bytes": 10], "verified_token_cache.max_bytes is a whole number from 4096"),
        (["size": 10], "verified_token_cache has no 'size'"),
    ])
    func badValuesAreRefusedWithATypedError(value: JSONValue, message: String) {
        do {
            _ = try Self.configuration(["verified_token_cache": value])
            Issue.record("\(value) was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
