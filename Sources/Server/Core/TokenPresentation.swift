public import Federate
public import HTTPTypes

/// How a request presents its access token, and what must bind the verified token to the
/// request: the scheme step of ``CallerAuthenticator``.
///
/// The authenticator reads `Authorization: SCHEME TOKEN` once (one header, a token68 token),
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
    /// proved it); throws `FederateError` when it may not.
    func confirm(_ caller: CallerIdentity, token: String, request: ServerRequest) async throws(FederateError) -> CallerIdentity
    /// ``confirm(_:token:request:)`` without suspending, for a scheme that needs nothing it
    /// must wait for (`Bearer`); `nil` when only the async way can tell. The default answers `nil`.
    func confirmWithoutSuspending(_ caller: CallerIdentity, token: String, request: ServerRequest) throws(FederateError) -> CallerIdentity?
    /// The challenge's `error` when ``confirm(_:token:request:)`` threw `error`: `invalid_token`
    /// unless the scheme has its own (DPoP: `invalid_dpop_proof`, `use_dpop_nonce`). A token
    /// that fails verification is always `invalid_token`.
    func oauthError(forRefused error: FederateError) -> String
    /// Fields every response to a request of this scheme carries, refusals included (DPoP: the
    /// current `DPoP-Nonce` when the server uses nonces).
    func responseFields() -> HTTPFields
}

extension TokenPresentation {
    /// None: the authenticator asks ``confirm(_:token:request:)``.
    public func confirmWithoutSuspending(_ caller: CallerIdentity, token: String, request: ServerRequest) throws(FederateError) -> CallerIdentity? {
        nil
    }

    public func oauthError(forRefused error: FederateError) -> String { "invalid_token" }

    public func responseFields() -> HTTPFields { [:] }
}

/// RFC 6750 bearer tokens: whoever holds the token may use it. Only an unbound token is
/// taken (`TokenBinding.bearer`): one bound to a key (`cnf.jkt`, a DPoP-bound token, RFC 9449
/// §7.1; `cnf.x5t#S256`; `token_type` `DPoP`) is refused with `token_binding_mismatch`.
public struct BearerPresentation: TokenPresentation {
    /// Creates the presentation.
    public init() {}

    public var scheme: String { "Bearer" }

    public var challengeParameters: [(name: String, value: String)] { [] }

    public func confirm(_ caller: CallerIdentity, token: String, request: ServerRequest) async throws(FederateError) -> CallerIdentity {
        try confirmed(caller)
    }

    public func confirmWithoutSuspending(_ caller: CallerIdentity, token: String, request: ServerRequest) throws(FederateError) -> CallerIdentity? {
        try confirmed(caller)
    }

    private func confirmed(_ caller: CallerIdentity) throws(FederateError) -> CallerIdentity {
        try caller.binding.check(presentedWith: .bearer)
        return caller
    }
}
