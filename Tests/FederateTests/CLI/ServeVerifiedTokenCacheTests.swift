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

    static let badValues: [(JSONValue, String)] = {
        let shape = "verified_token_cache is true, false or"
        let entries = "verified_token_cache.entries is a whole number from 1"
        var values: [(JSONValue, String)] = [(.string("yes"), shape), (.integer(100), shape)]
        let badEntries: [JSONValue] = [.integer(0), .integer(-5), .double(1.5), .string("100"), .integer(20_000_000)]
        for value in badEntries { values.append((.object(["entries": value]), entries)) }
        values.append((.object(["max_token_bytes": .integer(100)]), "verified_token_cache.max_token_bytes is a whole number from 256"))
        values.append((.object(["max_bytes": .integer(10)]), "verified_token_cache.max_bytes is a whole number from 4096"))
        values.append((.object(["size": .integer(10)]), "verified_token_cache has no 'size'"))
        return values
    }()

    @Test(arguments: badValues)
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
