import CoreMetrics

/// The counters of one kind of token's verified-token caches (`VerifiedTokenCache`), created
/// once per ``Observability`` and kind and shared by its verifiers:
///
/// - `federate_verified_token_cache_hits_total{kind}`: tokens answered from the cache (their
///   key set unchanged; the claim rules still ran);
/// - `federate_verified_token_cache_misses_total{kind}`: tokens verified in full (new, or their
///   key set changed);
/// - `federate_verified_token_cache_evictions_total{kind}`: entries dropped to make room.
struct VerifiedTokenCacheMetrics: Sendable {
    /// The hit counter's name.
    static let hitsLabel = "federate_verified_token_cache_hits_total"
    /// The miss counter's name.
    static let missesLabel = "federate_verified_token_cache_misses_total"
    /// The eviction counter's name.
    static let evictionsLabel = "federate_verified_token_cache_evictions_total"

    let hits: Counter
    let misses: Counter
    let evictions: Counter

    /// The counters of `kind` in `observability`; `nil` when it records no metrics.
    init?(kind: TokenKind, observability: Observability) {
        guard !(observability.metrics is NOOPMetricsHandler) else { return nil }
        hits = observability.counters(Self.hitsLabel, keys: ["kind"]).counter([kind.rawValue])
        misses = observability.counters(Self.missesLabel, keys: ["kind"]).counter([kind.rawValue])
        evictions = observability.counters(Self.evictionsLabel, keys: ["kind"]).counter([kind.rawValue])
    }
}
