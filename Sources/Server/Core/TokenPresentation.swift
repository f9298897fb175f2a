package import Federate
import HTTPTypes

/// How a request presents its access token, and what must bind the verified token to the
/// request: the scheme step of ``CallerAuthenticator``.
///
/// The authenticator reads `Authorization: SCHEME TOKEN` once (one header, a token68 token),
/// picks the presentation whose scheme matches (case-insensitively), verifies the token with
/// its `TokenVerifier`, then has the presentation confirm the result.
/// ``BearerPresentation`` is RFC 6750's; ``DPoPPresentation`` (RFC 9449) checks the `DPoP`
/// proof against `VerifiedToken.confirmation`. These two are the presentations Federate
/// takes: an authenticator ignores any other conforming type.
public protocol TokenPresentation: Sendable {}

/// What a presentation does for ``CallerAuthenticator`` and the challenges it sends.
protocol PresentationScheme: TokenPresentation {
    /// The authentication scheme, as written in `Authorization` and in challenges: `Bearer`, `DPoP`.
    var scheme: String { get }
    /// Parameters every challenge of this scheme carries (DPoP: `algs`), in order.
    var challengeParameters: [(name: String, value: String)] { get }
    /// `caller`, verified from `token`, once it is shown it may be used on `request` (with what
    /// proved it); throws `FederateError` when it may not. Runs on the request's executor: a
    /// scheme that needs nothing it must wait for (`Bearer`) answers without suspending.
    nonisolated(nonsending) func confirm(
        _ caller: VerifiedToken, token: String, request: ServerRequest
    ) async throws(FederateError) -> VerifiedToken
    /// The challenge's `error` when ``confirm(_:token:request:)`` threw `error`: `invalid_token`
    /// unless the scheme has its own (DPoP: `invalid_dpop_proof`, `use_dpop_nonce`). A token
    /// that fails verification is always `invalid_token`.
    func oauthError(forRefused error: FederateError) -> String
    /// Fields every response to a request of this scheme carries, refusals included (DPoP: the
    /// current `DPoP-Nonce` when the server uses nonces).
    func responseFields() -> HTTPFields
}

extension TokenPresentation {
    /// The presentation's scheme step, `nil` for a type Federate does not know.
    var presentationScheme: (any PresentationScheme)? { self as? any PresentationScheme }
}

extension PresentationScheme {
    func oauthError(forRefused error: FederateError) -> String { "invalid_token" }

    func responseFields() -> HTTPFields { [:] }
}

/// RFC 6750 bearer tokens: whoever holds the token may use it. Only an unbound token is
/// taken (`TokenBinding.bearer`): one bound to a key (`cnf.jkt`, a DPoP-bound token, RFC 9449
/// §7.1; `cnf.x5t#S256`; `token_type` `DPoP`) is refused with `token_binding_mismatch`.
public struct BearerPresentation: TokenPresentation, PresentationScheme {
    /// Creates the presentation.
    public init() {}

    package var scheme: String { "Bearer" }

    var challengeParameters: [(name: String, value: String)] { [] }

    package nonisolated(nonsending) func confirm(
        _ caller: VerifiedToken, token: String, request: ServerRequest
    ) async throws(FederateError) -> VerifiedToken {
        try Self.confirmed(caller)
    }

    /// The one check of a `Bearer` presentation: the token is bound to nothing
    /// (``CallerAuthenticator`` calls it directly, without an async call).
    static func confirmed(_ caller: VerifiedToken) throws(FederateError) -> VerifiedToken {
        try caller.binding.check(presentedWith: .bearer)
        return caller
    }
}
