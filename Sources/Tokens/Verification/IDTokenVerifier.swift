/// Verifies ID tokens: the ``JWTVerifier`` pipeline with the ID-token rules of an
/// ``IDTokenPolicy`` (`IDTokenPolicy.rules(for:)`).
///
/// ```swift
/// let http = AsyncHTTPClientTransport.shared   // discovery and RemoteKeySet: FederateRelyingParty
/// let metadata = try await DiscoveryClient(httpClient: http).metadata(for: "https://accounts.example.com")
/// let verifier = try IDTokenVerifier(
///     policy: IDTokenPolicy(metadata: metadata, clientID: "my-client"),
///     keys: RemoteKeySet(url: metadata.jwksURI, httpClient: http))
/// let idToken = try await verifier.verify(token, expecting: .init(nonce: nonce))
/// ```
///
/// A verifier is a value: share it freely across tasks, and keep it: it remembers the tokens
/// it accepted without a nonce or other expectations (a bearer token sent again and again),
/// as its ``VerifiedTokenCacheConfiguration`` says, which changes their cost, never their
/// verdict. Verification takes no lock beyond the key cache's and that cache's brief ones,
/// so it scales across cores.
public struct IDTokenVerifier: Sendable {
    /// The rules applied.
    package let policy: IDTokenPolicy
    /// Where keys come from.
    package let keys: any KeySetProvider
    /// The time tokens are checked at.
    package let clock: FederateClock
    /// Where verifications are counted (kind `id_token`) and traced (`federate.id_token.verify`).
    package let observability: Observability
    private let metrics: VerificationMetrics
    private let requiresKeyID: Bool
    /// The pipeline for verifications that expect no nonce, hashes or max age (a bearer
    /// token, a token from an app): built once, not per token.
    private(set) var plain: JWTVerifier

    /// Creates a verifier that checks tokens at `clock`'s time, reports to `observability`
    /// (by default, the metrics and tracing systems the application bootstrapped) and remembers
    /// the tokens it accepts without expectations as `cache` says (on by default).
    public init(
        policy: IDTokenPolicy, keys: any KeySetProvider, clock: FederateClock = .system, observability: Observability = Observability(),
        cache: VerifiedTokenCacheConfiguration = .default
    ) {
        self.init(policy: policy, keys: keys, clock: clock, observability: observability, requiresKeyID: false, cache: cache)
    }

    /// A verifier that, with `requiresKeyID`, refuses a token that does not name its key
    /// (``FederateError/Code/unknownKey``), as Firebase's verifiers do.
    package init(
        policy: IDTokenPolicy, keys: any KeySetProvider, clock: FederateClock, observability: Observability, requiresKeyID: Bool,
        cache: VerifiedTokenCacheConfiguration = .default
    ) {
        self.policy = policy
        self.keys = keys
        self.clock = clock
        self.observability = observability
        self.requiresKeyID = requiresKeyID
        let metrics = observability.verifications(of: .idToken)
        self.metrics = metrics
        self.plain = Self.pipeline(
            policy: policy, keys: keys, clock: clock, requiresKeyID: requiresKeyID, expectations: IDTokenExpectations()
        )
        .observed(by: observability, metrics: metrics)
        .caching(cache, as: .idToken, observability: observability)
    }

    /// This verifier with a cache of its own sized by `configuration` (`disabled`: none).
    package func caching(_ configuration: VerifiedTokenCacheConfiguration) -> IDTokenVerifier {
        var copy = self
        copy.plain = plain.caching(configuration, as: .idToken, observability: observability)
        return copy
    }

    /// Verifies `token`. On an unknown `kid`, asks the key provider for a refreshed set once
    /// (rate-limited there) and retries, without parsing the token again. Runs on the caller's
    /// executor, suspending only while keys are fetched. Throws ``FederateError``.
    public nonisolated(nonsending) func verify(
        _ token: String, expecting expectations: IDTokenExpectations = IDTokenExpectations()
    ) async throws(FederateError) -> IDToken {
        // The plain pipeline is used in place: returning it from a function copied (retained
        // and released) every field of the verifier on each token.
        if Self.isPlain(expectations) { return IDToken(try await plain.verify(token)) }
        return IDToken(try await pipeline(expectations).verify(token))
    }

    /// The limits tokens are parsed under.
    package var limits: JWSLimits { policy.limits }

    /// Whether `expectations` add no rule to the policy's: then ``plain`` verifies.
    private static func isPlain(_ expectations: IDTokenExpectations) -> Bool {
        expectations.nonce == nil && expectations.accessToken == nil && expectations.authorizationCode == nil
            && expectations.maxAge == nil && expectations.authentication == nil
    }

    /// The pipeline for expectations that add rules, built for this token.
    private func pipeline(_ expectations: IDTokenExpectations) -> JWTVerifier {
        Self.pipeline(policy: policy, keys: keys, clock: clock, requiresKeyID: requiresKeyID, expectations: expectations)
            .observed(by: observability, metrics: metrics)
    }

    private static func pipeline(
        policy: IDTokenPolicy, keys: any KeySetProvider, clock: FederateClock, requiresKeyID: Bool, expectations: IDTokenExpectations
    ) -> JWTVerifier {
        JWTVerifier(
            rules: policy.rules(for: expectations), allowedAlgorithms: policy.allowedAlgorithms, keys: keys,
            hmacSecret: policy.hmacSecret, clockTolerance: policy.clockTolerance, clock: clock, requiresKeyID: requiresKeyID,
            limits: policy.limits)
    }
}
