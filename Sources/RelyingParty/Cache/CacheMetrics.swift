import CoreMetrics
import FederateTokens

/// What a ``RefreshingCache`` counts, its counters created once with the cache: fetches by
/// outcome, forced refetches the rate limit refused, and stale values served.
struct CacheMetrics: Sendable {
    let fetchSucceeded: Counter
    let fetchFailed: Counter
    let refetchRefused: Counter
    let staleServed: Counter

    /// The key-set counters of Docs/Operations.md for the key set at `url` (its `url` label).
    static func keySet(url: String, observability: Observability) -> CacheMetrics {
        let factory = observability.metrics
        return CacheMetrics(
            fetchSucceeded: Counter(
                label: "federate_key_set_fetches_total", dimensions: [("url", url), ("outcome", "ok")], factory: factory),
            fetchFailed: Counter(
                label: "federate_key_set_fetches_total", dimensions: [("url", url), ("outcome", "error")], factory: factory),
            refetchRefused: Counter(label: "federate_key_set_refetches_refused_total", dimensions: [("url", url)], factory: factory),
            staleServed: Counter(label: "federate_key_set_stale_serves_total", dimensions: [("url", url)], factory: factory))
    }
}
