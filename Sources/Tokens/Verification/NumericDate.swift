package import Foundation

/// A JWT time claim (RFC 7519 §2 "NumericDate"): seconds since 1970-01-01T00:00:00Z.
///
/// Federate accepts a finite JSON number from 0 to 2^53 inclusive, fractions allowed.
/// Anything else — a negative or non-finite number, a string, a number beyond 2^53 such as
/// `9.3e18` or `1e300` — is refused with ``FederateError/Code/invalidClaim`` naming the claim.
/// Inside that range every conversion (to `Int64`, to `Date`, in a message) is exact enough
/// and can never trap, whatever a signed token carries.
package struct NumericDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The largest accepted value: 2^53, the last integer a `Double` holds exactly.
    package static let maximum: Double = 9_007_199_254_740_992

    /// Seconds since 1970, in 0…2^53.
    package let secondsSince1970: Double

    /// The value, when `seconds` is finite and in 0…2^53; otherwise `nil`.
    package init?(secondsSince1970 seconds: Double) {
        guard seconds.isFinite, seconds >= 0, seconds <= Self.maximum else { return nil }
        self.secondsSince1970 = seconds
    }

    /// Reads a JSON number as a NumericDate; `nil` for anything else or out of range.
    package init?(json value: JSONValue) {
        switch value {
        case .integer(let whole):
            guard whole >= 0, whole <= 1 << 53 else { return nil }
            self.init(secondsSince1970: Double(whole))
        case .double(let seconds):
            self.init(secondsSince1970: seconds)
        default:
            return nil
        }
    }

    /// The whole seconds, rounded down. Never traps: the value is at most 2^53.
    package var wholeSeconds: Int64 { Int64(secondsSince1970.rounded(.down)) }

    /// The instant as a `Date`.
    package var date: Date { Date(timeIntervalSince1970: secondsSince1970) }

    package static func < (lhs: NumericDate, rhs: NumericDate) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    /// Whole seconds, for messages.
    package var description: String { String(wholeSeconds) }
}

/// Safe conversions of numbers that came from outside (a token, a provider's response, a
/// command-line flag): never `Int(someDouble)`, which traps on NaN, infinities and values
/// beyond the integer's range.
package enum SafeNumber {
    /// `value` rounded toward zero as an `Int64`, or `nil` when it is not finite or does not fit.
    static func int64(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        return Int64(exactly: value.rounded(.towardZero))
    }

    /// `value` rounded toward zero, clamped into `Int64`'s range (NaN gives 0).
    package static func clampedInt64(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return .max }  // 2^63: the first Double above Int64.max
        if value <= -9_223_372_036_854_775_808 { return .min }
        return Int64(value.rounded(.towardZero))
    }

    /// A number for a message: whole when it is integral and fits, else as Swift prints it.
    package static func text(_ value: Double) -> String {
        if let whole = int64(value), Double(whole) == value { return String(whole) }
        return "\(value)"
    }
}
