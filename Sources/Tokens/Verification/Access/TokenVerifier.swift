/// Verifies a token a request presents and says what it establishes: the one shape every
/// verifier of Federate has, for every kind of token.
///
/// ``IDTokenBearerVerifier`` (any OpenID issuer's ID tokens) and each provider's ID-token
/// verifier, ``AccessTokenVerifier`` (RFC 9068 JWTs), `IntrospectionClient` (RFC 7662,
/// FederateRelyingParty) and ``CallerTokenRouter`` (any of them, by the token's shape)
/// implement it; so can a verifier of your own, building its result with one of
/// ``VerifiedToken``'s initializers. How the token is presented (`Bearer`, or DPoP with a proof
/// bound to ``VerifiedToken/binding``) is the middleware's concern, not this step's.
///
/// The requirement runs on its caller's executor (`nonisolated(nonsending)`): an
/// implementation that has what it needs at hand (a JWT verifier with warm keys) answers
/// without suspending, so a server's request does not hop between executors. One that must
/// wait (a fetch, an introspection call) simply suspends.
public protocol TokenVerifier: Sendable {
    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken
}
