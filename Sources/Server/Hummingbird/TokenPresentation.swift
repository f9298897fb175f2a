public import Federate
public import Hummingbird

/// How a request presents its access token, and what must bind the verified token to the
/// request: the scheme step of ``BearerAuthenticationMiddleware``.
///
/// The middleware reads `Authorization: SCHEME TOKEN` once (one header, a token68 token),
/// picks the presentation whose ``scheme`` matches (case-insensitively), verifies the token
/// with its `CallerTokenVerifier`, then asks the presentation to ``confirm(_:token:request:)``
/// the result. ``BearerPresentation`` is RFC 6750's; ``DPoPPresentation`` (RFC 9449) checks the
/// `DPoP` proof against `CallerIdentity.confirmation`.
public protocol TokenPresentation: Sendable {
    /// The authentication scheme, as written in `Authorization` and in challenges: `Bearer`, `DPoP`.
    var scheme: String { get }
    /// Parameters every challenge of this scheme carries (DPoP: `algs`), in order.
    var challengeParameters: [(name: String, value: String)] { get }
    /// `caller`, verified from `token`, once it is shown it may be used on `request` (with what
    /// proved it); throws `FederateError` when it may not. Runs on the request's executor: a
    /// scheme that needs nothing it must wait for (`Bearer`) answers without suspending.
    nonisolated(nonsending) func confirm(_ caller: CallerIdentity, token: String, request: Request) async throws(FederateError) -> CallerIdentity
    /// The challenge's `error` when ``confirm(_:token:request:)`` threw `error`: `invalid_token`
    /// unless the scheme has its own (DPoP: `invalid_dpop_proof`, `use_dpop_nonce`). A token
    /// that fails verification is always `invalid_token`.
    func oauthError(forRefused error: FederateError) -> String
    /// Fields every response to a request of this scheme carries, refusals included (DPoP: the
    /// current `DPoP-Nonce` when the server uses nonces).
    func responseFields() -> HTTPFields
}

extension TokenPresentation {
    public func oauthError(forRefused error: FederateError) -> String { "invalid_token" }

    public func responseFields() -> HTTPFields { [:] }
}

/// RFC 6750 bearer tokens: whoever holds the token may use it. A token bound to a key
/// (`cnf.jkt`, a DPoP-bound token) is refused here (RFC 9449 §7.1): it must come with its proof.
public struct BearerPresentation: TokenPresentation {
    /// Creates the presentation.
    public init() {}

    public var scheme: String { "Bearer" }

    public var challengeParameters: [(name: String, value: String)] { [] }

    public nonisolated(nonsending) func confirm(_ caller: CallerIdentity, token: String, request: Request) async throws(FederateError) -> CallerIdentity {
        try Self.confirmed(caller)
    }

    /// The one check of a `Bearer` presentation: the token is bound to no key.
    static func confirmed(_ caller: CallerIdentity) throws(FederateError) -> CallerIdentity {
        if caller.confirmation?.jkt != nil {
            throw FederateError(.tokenBindingMismatch, "this token is bound to a key (cnf.jkt): present it with a DPoP proof, not as Bearer")
        }
        return caller
    }
}
