package import Foundation

extension Duration {
    /// The span in seconds, as `Date` arithmetic and JWT `NumericDate`s count time.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The span in whole seconds, rounded toward zero (a session's lifetime in its `exp`).
    package var wholeSeconds: Int64 { components.seconds }

    /// `seconds` as a span; `nil` when not finite or beyond what a `Duration` holds, so that a
    /// value from a configuration file or a command line can never trap.
    package static func checkedSeconds(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, abs(seconds) < 9e18 else { return nil }
        return .seconds(seconds)
    }
}

extension Date {
    /// The date `span` after this one.
    package func adding(_ span: Duration) -> Date {
        addingTimeInterval(span.inSeconds)
    }
}
