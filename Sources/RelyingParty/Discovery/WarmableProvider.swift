public import FederateTokens

/// A provider whose remote state — its discovery document and key set — a server can fetch
/// ahead of the first sign-in, and check without fetching: what a readiness probe asks.
/// `OIDCProvider`, `GoogleProvider` and `AppleProvider` conform, through their ``ProviderCache``.
public protocol WarmableProvider: Sendable {
    /// Fetches the discovery document and key set into the cache (nothing when both are
    /// fresh). Throws when the provider cannot be reached.
    func warm() async throws(FederateError)

    /// Whether the discovery document and key set are cached (fresh, or stale but still
    /// served). Fetches nothing.
    var isWarm: Bool { get }
}
