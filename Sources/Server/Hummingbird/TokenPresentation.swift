public import Federate
public import Hummingbird

/// How a request presents its access token, and what must bind the verified token to the
/// request: the scheme step of ``BearerAuthenticationMiddleware``.
///
/// The middleware reads `Authorization: SCHEME TOKEN` once (one header, a token68 token),
/// picks the presentation whose ``scheme`` matches (case-insensitively), verifies the token
/// with its `CallerTokenVerifier`, then asks the presentation to ``confirm(_:token:request:)``
/// the result. ``BearerPresentation`` is RFC 6750's; a DPoP presentation (RFC 9449) checks
/// the `DPoP` proof against `CallerIdentity.confirmation` in `confirm`.
public protocol TokenPresentation: Sendable {
    /// The authentication scheme, as written in `Authorization` and in challenges: `Bearer`, `DPoP`.
    var scheme: String { get }
    /// Parameters every challenge of this scheme carries (DPoP: `algs`), in order.
    var challengeParameters: [(name: String, value: String)] { get }
    /// Throws `FederateError` unless `caller`, verified from `token`, may be used on `request`.
    func confirm(_ caller: CallerIdentity, token: String, request: Request) async throws(FederateError)
}

/// RFC 6750 bearer tokens: whoever holds the token may use it. A token bound to a key
/// (`cnf.jkt`, a DPoP-bound token) is refused here (RFC 9449 §7.1): it must come with its proof.
public struct BearerPresentation: TokenPresentation {
    /// Creates the presentation.
    public init() {}

    public var scheme: String { "Bearer" }

    public var challengeParameters: [(name: String, value: String)] { [] }

    public func confirm(_ caller: CallerIdentity, token: String, request: Request) async throws(FederateError) {
        if caller.confirmation?.jkt != nil {
            throw FederateError(.tokenBindingMismatch, "this token is bound to a key (cnf.jkt): present it with a DPoP proof, not as Bearer")
        }
    }
}
