/// How long introspection results are kept, and how many.
///
/// An active result lives no longer than the token has left (`exp`) and `activeCeiling`:
/// a token revoked at the authorization server is still accepted for up to that long. An
/// inactive result lives `inactiveLifetime`, so a client retrying a dead token does not
/// reach the endpoint on every request. Failures are never cached. Entries are keyed by the
/// SHA-256 of the token, never the token.
public struct IntrospectionCachePolicy: Sendable, Hashable {
    /// The longest an active result is served from the cache; zero caches none. Default 60 s.
    package var activeCeiling: Duration
    /// How long an inactive result is served from the cache; zero caches none. Default 5 s.
    package var inactiveLifetime: Duration
    /// The most results kept; when full, expired ones go first, then a quarter of the rest.
    /// Default 10,000.
    package var maximumEntries: Int

    /// Creates a policy.
    public init(activeCeiling: Duration = .seconds(60), inactiveLifetime: Duration = .seconds(5), maximumEntries: Int = 10_000) {
        self.activeCeiling = activeCeiling
        self.inactiveLifetime = inactiveLifetime
        self.maximumEntries = maximumEntries
    }

    /// No caching: every verification asks the endpoint (concurrent ones for one token still share a call).
    package static let none = IntrospectionCachePolicy(activeCeiling: .zero, inactiveLifetime: .zero, maximumEntries: 0)
}
