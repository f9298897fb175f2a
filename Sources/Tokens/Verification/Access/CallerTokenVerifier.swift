/// The token-verification step of an API request: turns the token a request presented into
/// a ``CallerIdentity``, or throws ``FederateError``.
///
/// ``AccessTokenVerifier`` (RFC 9068 JWTs), every ``BearerTokenVerifier`` (ID tokens),
/// `IntrospectionClient` (RFC 7662, FederateRelyingParty) and ``CallerTokenRouter`` (any of
/// them, by the token's shape) implement it. How the token is presented (`Bearer`, or DPoP
/// with a proof bound to `CallerIdentity.confirmation`) is the middleware's concern, not
/// this step's.
///
/// The requirement runs on its caller's executor (`nonisolated(nonsending)`): an
/// implementation that has what it needs at hand (a JWT verifier with warm keys) answers
/// without suspending, so a server's request does not hop between executors. One that must
/// wait (a fetch, an introspection call) simply suspends.
public protocol CallerTokenVerifier: Sendable {
    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    nonisolated(nonsending) func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity
}

extension BearerTokenVerifier {
    /// Verifies `token` as an ID token (`verifyBearer(_:)`).
    public nonisolated(nonsending) func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
        CallerIdentity(bearer: try await verifyBearer(token))
    }
}
