import FederateHummingbird
import Foundation

/// The `"guest_limits"` object and `"trusted_proxies"` list of `federate serve`'s configuration
/// file: how guest accounts (`"guests": true`) are bounded, and which reverse proxies'
/// `X-Forwarded-For` names the client.
///
/// ```json
/// "guest_limits": {"burst": 5, "interval_seconds": 60, "max_live": 100000, "lifetime_days": 7},
/// "trusted_proxies": ["10.0.0.2"]
/// ```
///
/// Each member is optional; the defaults are those above (no trusted proxy).
struct GuestSettings {
    /// Guests one client may create at once, then one per `interval`.
    var rateLimit = RateLimit.guests
    /// The most guests alive at once.
    var maximumLive = 100_000
    /// How long a guest that links nothing lives.
    var lifetimeDays = 7
    /// The reverse proxies whose `X-Forwarded-For` is believed.
    var trustedProxies: [String] = []

    /// The defaults.
    init() {}

    /// Reads `"guest_limits"` (may be absent) and `"trusted_proxies"` (may be absent).
    init(limits: JSONValue?, trustedProxies proxies: JSONValue?) throws(FederateError) {
        if let limits {
            guard case .object(let object) = limits else {
                throw FederateError(
                    .invalidConfiguration,
                    "guest_limits is an object: {\"burst\": N, \"interval_seconds\": S, \"max_live\": N, \"lifetime_days\": D}")
            }
            func whole(_ key: String, _ range: ClosedRange<Int>) throws(FederateError) -> Int? {
                guard let value = object[key] else { return nil }
                guard let number = value.doubleValue, number.rounded() == number, number >= Double(range.lowerBound),
                    number <= Double(range.upperBound)
                else {
                    throw FederateError(
                        .invalidConfiguration, "guest_limits.\(key) is a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                return Int(number)
            }
            let burst = try whole("burst", 0...10_000) ?? rateLimit.burst
            let interval = try whole("interval_seconds", 1...86_400).map { Duration.seconds($0) } ?? rateLimit.interval
            rateLimit = RateLimit(burst: burst, interval: interval)
            maximumLive = try whole("max_live", 1...100_000_000) ?? maximumLive
            lifetimeDays = try whole("lifetime_days", 1...365) ?? lifetimeDays
        }
        if let proxies {
            guard let list = proxies.arrayValue else {
                throw FederateError(.invalidConfiguration, "trusted_proxies is a list of IP addresses")
            }
            for entry in list {
                guard let address = entry.stringValue, IPAddress(host: address) != nil else {
                    throw FederateError(.invalidConfiguration, "trusted_proxies holds IP addresses (10.0.0.2, ::1), not names or ranges")
                }
                trustedProxies.append(address)
            }
        }
    }
}
