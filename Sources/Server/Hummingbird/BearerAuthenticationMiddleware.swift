public import Federate
public import Hummingbird

/// Requires a verified token in `Authorization` and records who the caller is in
/// ``FederateAuthentication/caller`` (and, for an ID token, ``FederateAuthentication/bearer``).
///
/// Three steps, each a value of its own:
/// 1. the presentation: `Authorization: SCHEME TOKEN` read once, the scheme matched to one of
///    ``presentations`` (``BearerPresentation`` by default; ``DPoPPresentation`` for DPoP-bound tokens);
/// 2. the verification: ``verifier``, any `CallerTokenVerifier` — a provider's ID-token
///    verifier, an `AccessTokenVerifier` (RFC 9068), an `IntrospectionClient` (RFC 7662), or a
///    `CallerTokenRouter` taking several kinds;
/// 3. the binding and the scopes: the presentation confirms the token may be used on this
///    request, then ``requiredScopes`` must all be granted.
///
/// ```swift
/// router.group("api")
///     .add(middleware: BearerAuthenticationMiddleware<FederateContext>(
///         verifier: CallerTokenRouter(idTokens: google, accessTokens: accessTokens), requiredScopes: ["orders:read"]))
/// ```
///
/// Refusals are RFC 6750 §3 challenges (``BearerChallenge``): 401 `invalid_request` without a
/// token (code `missing_bearer_token`), 400 `invalid_request` for a malformed header, 401
/// `invalid_token` (with the verification's own code), 401 with the presentation's own error
/// when the token may not be used on this request (DPoP: `invalid_dpop_proof`,
/// `use_dpop_nonce`), 403 `insufficient_scope` with the required `scope`, and 503 when the
/// introspection endpoint fails. Each `error` goes on the challenge of the scheme the request
/// used; every other scheme is still challenged, without one.
public struct BearerAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Verifies the tokens.
    public let verifier: any CallerTokenVerifier
    /// The scopes every request must have been granted (none by default).
    public let requiredScopes: OAuthScopes
    /// The schemes accepted, in the order challenges list them.
    public let presentations: [any TokenPresentation]

    /// ``verifier`` and each presentation as the request path calls them: Federate's own types
    /// directly, anything else through its protocol. An async call through a protocol makes
    /// its caller check its executor once it returns, which under SwiftNIO's executor is a hop
    /// per call; called directly, a request with warm keys and a `Bearer` token takes none here.
    private let verification: Verification
    private let bearerSchemes: [Bool]

    private enum Verification: Sendable {
        case idTokens(IDTokenBearerVerifier)
        case router(CallerTokenRouter)
        case accessTokens(AccessTokenVerifier)
        case other(any CallerTokenVerifier)

        init(_ verifier: any CallerTokenVerifier) {
            switch verifier {
            case let known as IDTokenBearerVerifier: self = .idTokens(known)
            case let known as CallerTokenRouter: self = .router(known)
            case let known as AccessTokenVerifier: self = .accessTokens(known)
            default: self = .other(verifier)
            }
        }

        nonisolated(nonsending) func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
            switch self {
            case .idTokens(let verifier): return try await verifier.verifyCaller(token)
            case .router(let verifier): return try await verifier.verifyCaller(token)
            case .accessTokens(let verifier): return try await verifier.verifyCaller(token)
            case .other(let verifier): return try await verifier.verifyCaller(token)
            }
        }
    }

    /// Creates the middleware. A `BearerTokenVerifier` (ID tokens) is a `CallerTokenVerifier`.
    public init(verifier: any CallerTokenVerifier, requiredScopes: OAuthScopes = [], presentations: [any TokenPresentation] = [BearerPresentation()]) {
        self.verifier = verifier
        self.requiredScopes = requiredScopes
        self.presentations = presentations
        self.verification = Verification(verifier)
        self.bearerSchemes = presentations.map { $0 is BearerPresentation }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let authenticated = try await authenticated(request)
        var context = context
        context.federate.caller = authenticated.caller
        context.federate.bearer = authenticated.caller.bearer
        var response = try await next(request, context)
        for field in authenticated.presentation.responseFields() { response.headers.append(field) }
        return response
    }

    /// The caller `request` proves to be, or the refusal (a ``BearerChallenge``).
    public nonisolated(nonsending) func authenticate(_ request: Request) async throws(BearerChallenge) -> CallerIdentity {
        try await authenticated(request).caller
    }

    /// A caller, and the presentation that proved it.
    private struct Authenticated {
        let caller: CallerIdentity
        let presentation: any TokenPresentation
    }

    /// The header and the scheme, then the verification and the confirmation. Every step runs
    /// on the request's executor (`nonisolated(nonsending)`): with warm keys and a `Bearer`
    /// token nothing suspends, so the request takes no executor hop here (Docs/Performance.md,
    /// "The server"); a step that must wait (a fetch, a replay store) simply suspends.
    private nonisolated(nonsending) func authenticated(_ request: Request) async throws(BearerChallenge) -> Authenticated {
        let (token, index) = try presented(request)
        let presentation = presentations[index]
        let verified: CallerIdentity
        do throws(FederateError) {
            verified = try await verification.verifyCaller(token)
        } catch {
            throw verificationRefusal(error, presentation: presentation)
        }
        let caller: CallerIdentity
        do throws(FederateError) {
            if bearerSchemes[index] {
                caller = try BearerPresentation.confirmed(verified)
            } else {
                caller = try await presentation.confirm(verified, token: token, request: request)
            }
        } catch {
            throw confirmationRefusal(error, presentation: presentation)
        }
        return try scopesChecked(caller, presentation: presentation)
    }

    /// The token in `Authorization` and the index of the presentation of its scheme.
    private func presented(_ request: Request) throws(BearerChallenge) -> (token: String, presentation: Int) {
        let credentials: AuthorizationCredentials
        switch AuthorizationCredentials.from(request.headers) {
        case .success(let found): credentials = found
        case .failure(.absent):
            throw BearerChallenge(
                status: .unauthorized, oauthError: "invalid_request",
                error: FederateError(.missingBearerToken, "send Authorization: Bearer TOKEN"), presentations: presentations)
        case .failure(.malformed(let reason)):
            throw BearerChallenge(
                status: .badRequest, oauthError: "invalid_request", error: FederateError(.invalidAuthorizationHeader, reason),
                presentations: presentations)
        }
        guard let presentation = presentations.firstIndex(where: { $0.scheme.caseInsensitiveEquals(String(credentials.scheme)) }) else {
            throw BearerChallenge(
                status: .unauthorized, oauthError: "invalid_request",
                error: FederateError(.missingBearerToken, "send Authorization: \(presentations.map(\.scheme).joined(separator: " or ")) TOKEN"),
                presentations: presentations)
        }
        return (credentials.token, presentation)
    }

    /// A token the verifier refused: 503 when introspection failed, else `invalid_token`.
    private func verificationRefusal(_ error: FederateError, presentation: any TokenPresentation) -> BearerChallenge {
        if error.code == .introspectionFailed { return BearerChallenge(status: .serviceUnavailable, oauthError: nil, error: error, presentations: []) }
        return refusal(error, oauthError: "invalid_token", presentation: presentation)
    }

    /// A verified token the presentation refused for this request, with the scheme's own `error`.
    private func confirmationRefusal(_ error: FederateError, presentation: any TokenPresentation) -> BearerChallenge {
        refusal(error, oauthError: presentation.oauthError(forRefused: error), presentation: presentation)
    }

    private func scopesChecked(_ caller: CallerIdentity, presentation: any TokenPresentation) throws(BearerChallenge) -> Authenticated {
        try RequiredScopes.check(caller, requires: requiredScopes, presentations: presentations)
        return Authenticated(caller: caller, presentation: presentation)
    }

    private func refusal(_ error: FederateError, oauthError: String, presentation: any TokenPresentation) -> BearerChallenge {
        BearerChallenge(
            status: .unauthorized, oauthError: oauthError, error: error, presentations: presentations, scheme: presentation.scheme,
            fields: presentation.responseFields())
    }
}
