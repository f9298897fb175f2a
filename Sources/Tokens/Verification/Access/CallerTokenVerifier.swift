/// The token-verification step of an API request: turns the token a request presented into
/// a ``CallerIdentity``, or throws ``FederateError``.
///
/// ``AccessTokenVerifier`` (RFC 9068 JWTs), every ``BearerTokenVerifier`` (ID tokens),
/// `IntrospectionClient` (RFC 7662, FederateRelyingParty) and ``CallerTokenRouter`` (any of
/// them, by the token's shape) implement it. How the token is presented (`Bearer`, or DPoP
/// with a proof bound to ``CallerIdentity/confirmation``) is the middleware's concern, not
/// this step's.
public protocol CallerTokenVerifier: Sendable {
    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity

    /// Verifies `token` without suspending when all it needs is at hand (for JWTs: the keys,
    /// cached, and no tracing), so a server's request does not hop between executors; `nil`
    /// when only ``verifyCaller(_:)`` can tell. Must agree with ``verifyCaller(_:)`` on every
    /// token it answers. The default answers `nil`: always the async way.
    func verifyCallerWithoutSuspending(_ token: String) throws(FederateError) -> CallerIdentity?
}

extension CallerTokenVerifier {
    /// None: the middleware asks ``verifyCaller(_:)``.
    public func verifyCallerWithoutSuspending(_ token: String) throws(FederateError) -> CallerIdentity? { nil }
}

extension BearerTokenVerifier {
    /// Verifies `token` as an ID token (``verifyBearer(_:)``).
    public func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
        CallerIdentity(bearer: try await verifyBearer(token))
    }

    /// Verifies `token` as an ID token when the keys are at hand (``verifyBearerWithoutSuspending(_:)``).
    public func verifyCallerWithoutSuspending(_ token: String) throws(FederateError) -> CallerIdentity? {
        try verifyBearerWithoutSuspending(token).map(CallerIdentity.init(bearer:))
    }
}
