/// Verifies RFC 9068 JWT access tokens for one API: the ``JWTVerifier`` pipeline with the
/// rules of an ``AccessTokenPolicy``.
///
/// ```swift
/// let verifier = AccessTokenVerifier(
///     policy: AccessTokenPolicy(issuers: ["https://login.example.com"], resources: ["https://api.example.com"]),
///     keys: keys)   // a RemoteKeySet (FederateRelyingParty) or a key set in hand
/// let verified = try await verifier.verify(accessToken)   // verified.scopes, verified.accessToken
/// ```
///
/// The pipeline is built once; a verification costs what an ID-token verification costs
/// (`Benchmarks/`), and a token accepted before costs a cache lookup and the claim rules
/// (``VerifiedTokenCacheConfiguration``: on by default; the verdict never changes). A verifier
/// is a value: share it freely across tasks, and keep it, with its cache.
public struct AccessTokenVerifier: TokenVerifier {
    /// The rules applied.
    package let policy: AccessTokenPolicy
    /// Where keys come from.
    package let keys: any KeySetProvider
    /// The time tokens are checked at.
    package let clock: FederateClock
    /// The provider the tokens come from, as callers' identities name it (`oidc.corp`).
    package let providerID: String?
    private(set) var pipeline: JWTVerifier
    private let observability: Observability

    /// Creates a verifier that checks tokens at `clock`'s time, counts them (kind
    /// `access_token`) in `observability` and remembers those it accepts as `cache` says (on
    /// by default).
    public init(
        policy: AccessTokenPolicy, keys: any KeySetProvider, providerID: String? = nil, clock: FederateClock = .system,
        observability: Observability = Observability(), cache: VerifiedTokenCacheConfiguration = .default
    ) {
        self.policy = policy
        self.keys = keys
        self.providerID = providerID
        self.clock = clock
        self.observability = observability
        self.pipeline = JWTVerifier(
            rules: policy.rules, allowedAlgorithms: policy.allowedAlgorithms, keys: keys, clockTolerance: policy.clockTolerance,
            clock: clock,
            limits: policy.limits
        )
        .observed(by: observability, as: .accessToken)
        .caching(cache, as: .accessToken, observability: observability)
    }

    /// This verifier with a cache of its own sized by `configuration` (`disabled`: none).
    package func caching(_ configuration: VerifiedTokenCacheConfiguration) -> AccessTokenVerifier {
        var copy = self
        copy.pipeline = pipeline.caching(configuration, as: .accessToken, observability: observability)
        return copy
    }

    /// Verifies `token`; on an unknown `kid`, asks the key provider for a refreshed set once.
    /// Runs on the caller's executor, suspending only while keys are fetched. The result's
    /// ``VerifiedToken/accessToken`` is the token's own reading.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        VerifiedToken(accessToken: try AccessToken(try await pipeline.verify(token)), providerID: providerID)
    }

}

extension TokenKind {
    /// An RFC 9068 JWT access token.
    package static let accessToken = TokenKind(rawValue: "access_token")
}
