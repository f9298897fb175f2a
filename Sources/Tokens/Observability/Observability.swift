public import CoreMetrics
public import Tracing
import Synchronization

/// Where Federate's metrics and spans go: a `MetricsFactory` (swift-metrics) and a `Tracer`
/// (swift-distributed-tracing). Federate only emits; which backend receives (Prometheus,
/// OpenTelemetry through swift-otel, nothing) is the application's choice.
///
/// The defaults are the process-wide systems the application bootstrapped
/// (`MetricsSystem.bootstrap`, `InstrumentationSystem.bootstrap`), read when the value is
/// created: bootstrap them first. Tests hand their own factory and tracer instead, so tests
/// running in parallel in one process never share them.
///
/// ```swift
/// let observability = Observability(metrics: PrometheusMetricsFactory(registry: registry))
/// let cache = ProviderCache(httpClient: http, observability: observability)
/// let accounts = AccountService(store: store, observability: observability)
/// ```
///
/// Build one per server and hand the same value to the `ProviderCache` and the
/// `AccountService`: it keeps the metric objects it creates, so a verifier or client built per
/// request reuses them instead of creating new ones. Metric names and span names are listed in
/// `Docs/Operations.md`. No metric label or span attribute ever holds a token, code, nonce,
/// state, secret or email.
public final class Observability: Sendable {
    /// The factory metrics are created with.
    package let metrics: any MetricsFactory
    /// The tracer spans are started with.
    package let tracer: any Tracer
    /// Whether spans are recorded: `false` for swift-distributed-tracing's `NoOpTracer`, so an
    /// application that traces nothing pays nothing for the spans.
    package let isTracing: Bool
    private let verificationMetrics = Mutex<[TokenKind: VerificationMetrics]>([:])
    private let families = Mutex<[String: CounterFamily]>([:])

    /// Emits to `metrics` and `tracer`; by default, to what the application bootstrapped.
    public init(metrics: any MetricsFactory = MetricsSystem.factory, tracer: any Tracer = InstrumentationSystem.tracer) {
        self.metrics = metrics
        self.tracer = tracer
        self.isTracing = !(tracer is NoOpTracer)
    }

    /// Emits nothing, whatever the application bootstrapped.
    public static var disabled: Observability {
        Observability(metrics: NOOPMetricsHandler.instance, tracer: NoOpTracer())
    }

    /// The counters and timer of verifications of `kind`, created on first use and kept.
    package func verifications(of kind: TokenKind) -> VerificationMetrics {
        verificationMetrics.withLock { cache in
            if let existing = cache[kind] { return existing }
            let created = VerificationMetrics(kind: kind, factory: metrics)
            cache[kind] = created
            return created
        }
    }

    /// The counters named `label` whose dimensions are `keys`, created on first use and kept.
    package func counters(_ label: String, keys: [String]) -> CounterFamily {
        families.withLock { cache in
            if let existing = cache[label] { return existing }
            let created = CounterFamily(label: label, keys: keys, factory: metrics)
            cache[label] = created
            return created
        }
    }

    /// A timer named `label` with `dimensions`. Create it once and keep it.
    package func timer(_ label: String, dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: dimensions, factory: metrics)
    }
}
