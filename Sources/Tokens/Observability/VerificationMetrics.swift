import CoreMetrics
import Synchronization

/// The metrics of one kind of token's verifications, created once per kind and shared by its
/// verifiers (`Observability.verifications(of:)`):
///
/// - `federate_verifications_total{kind, outcome}`: a counter per outcome, `ok` or the
///   ``FederateError/Code`` of the refusal (`token_expired`, `invalid_signature`, …);
/// - `federate_verification_duration_seconds{kind}`: a timer.
///
/// Recording an `ok` verification touches two metric objects created in advance and
/// allocates nothing.
package final class VerificationMetrics: Sendable {
    /// The kind of token counted.
    package let kind: TokenKind
    /// The span name of these verifications, `federate.<kind>.verify`.
    package let spanName: String
    private let succeeded: Counter
    private let duration: CoreMetrics.Timer
    private let refused: Mutex<[FederateError.Code: Counter]>
    private let factory: any MetricsFactory
    /// Whether anything receives these metrics: `false` for swift-metrics' `NOOPMetricsHandler`
    /// (no backend bootstrapped), so a verification then reads no clock for them.
    let isRecording: Bool

    /// The verification counter's name.
    package static let countLabel = "federate_verifications_total"
    /// The verification timer's name.
    package static let durationLabel = "federate_verification_duration_seconds"

    init(kind: TokenKind, factory: any MetricsFactory) {
        self.kind = kind
        self.factory = factory
        self.isRecording = !(factory is NOOPMetricsHandler)
        self.spanName = "federate.\(kind.rawValue).verify"
        self.succeeded = Counter(label: Self.countLabel, dimensions: [("kind", kind.rawValue), ("outcome", "ok")], factory: factory)
        self.duration = CoreMetrics.Timer(label: Self.durationLabel, dimensions: [("kind", kind.rawValue)], factory: factory)
        self.refused = Mutex([:])
    }

    /// Counts one verification that took `elapsed`: accepted when `refusal` is `nil`.
    package func record(refusal: FederateError.Code?, elapsed: Duration) {
        duration.recordNanoseconds(elapsed.metricNanoseconds)
        guard let refusal else {
            succeeded.increment()
            return
        }
        refusedCounter(refusal).increment()
    }

    private func refusedCounter(_ code: FederateError.Code) -> Counter {
        refused.withLock { counters in
            if let existing = counters[code] { return existing }
            let counter = Counter(
                label: Self.countLabel, dimensions: [("kind", kind.rawValue), ("outcome", code.rawValue)], factory: factory)
            counters[code] = counter
            return counter
        }
    }
}

extension Duration {
    /// Whole nanoseconds, as metric timers take them; clamped, never trapping.
    package var metricNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowTotal) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflowTotal ? .max : total
    }
}
