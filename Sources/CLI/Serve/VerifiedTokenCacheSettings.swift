import Federate

/// The `"verified_token_cache"` setting of `federate serve`'s configuration file: how many
/// verified tokens the API's verifiers remember (`VerifiedTokenCacheConfiguration`).
///
/// ```json
/// "verified_token_cache": {"entries": 10000, "max_bytes": 33554432, "max_token_bytes": 8192}   // each optional
/// "verified_token_cache": false                                                             // off
/// ```
///
/// On by default (10,000 tokens, 32 MiB, tokens up to 8 KiB); `true` is the default too.
/// `entries` is 1 to 10,000,000, `max_bytes` 4096 to 17,179,869,184 (16 GiB), `max_token_bytes`
/// 256 to 65,536; any other key, or another type, is `invalid_configuration`.
enum VerifiedTokenCacheSettings {
    /// The largest `entries`.
    static let maximumEntries: Int64 = 10_000_000

    /// Reads the setting.
    static func configuration(json value: JSONValue) throws(FederateError) -> VerifiedTokenCacheConfiguration {
        let shape = "verified_token_cache is true, false or {\"entries\": N, \"max_bytes\": N, \"max_token_bytes\": N}"
        switch value {
        case .bool(let on): return on ? .default : .disabled
        case .object(let members):
            var configuration = VerifiedTokenCacheConfiguration.default
            for (key, member) in members {
                switch key {
                case "entries":
                    configuration.maximumEntries = try number(member, key, in: 1...maximumEntries)
                case "max_bytes":
                    configuration.maximumBytes = try number(member, key, in: 4096...(16 << 30))
                case "max_token_bytes":
                    configuration.maximumTokenBytes = try number(member, key, in: 256...65_536)
                default:
                    throw FederateError(.invalidConfiguration, "verified_token_cache has no '\(key.prefix(64))'; \(shape)")
                }
            }
            return configuration
        default:
            throw FederateError(.invalidConfiguration, shape)
        }
    }

    private static func number(_ value: JSONValue, _ key: String, in range: ClosedRange<Int64>) throws(FederateError) -> Int {
        guard let number = value.int64Value, range.contains(number) else {
            throw FederateError(
                .invalidConfiguration, "verified_token_cache.\(key) is a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }
}
