public import Federate
public import Hummingbird

/// Requires a verified token in `Authorization` and records who the caller is in
/// ``FederateAuthentication/caller`` (and, for an ID token, ``FederateAuthentication/bearer``).
///
/// Three steps, each a value of its own:
/// 1. the presentation: `Authorization: SCHEME TOKEN` read once, the scheme matched to one of
///    ``presentations`` (``BearerPresentation`` by default; a DPoP presentation plugs in here);
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
/// `invalid_token` (with the verification's own code), 403 `insufficient_scope` with the
/// required `scope`, and 503 when the introspection endpoint fails.
public struct BearerAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Verifies the tokens.
    public let verifier: any CallerTokenVerifier
    /// The scopes every request must have been granted (none by default).
    public let requiredScopes: OAuthScopes
    /// The schemes accepted, in the order challenges list them.
    public let presentations: [any TokenPresentation]

    /// Creates the middleware. A `BearerTokenVerifier` (ID tokens) is a `CallerTokenVerifier`.
    public init(verifier: any CallerTokenVerifier, requiredScopes: OAuthScopes = [], presentations: [any TokenPresentation] = [BearerPresentation()]) {
        self.verifier = verifier
        self.requiredScopes = requiredScopes
        self.presentations = presentations
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.federate.caller = try await authenticate(request)
        context.federate.bearer = context.federate.caller?.bearer
        return try await next(request, context)
    }

    /// The caller `request` proves to be, or the refusal (a ``BearerChallenge``).
    public func authenticate(_ request: Request) async throws(BearerChallenge) -> CallerIdentity {
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
        guard let presentation = presentations.first(where: { $0.scheme.caseInsensitiveEquals(String(credentials.scheme)) }) else {
            throw BearerChallenge(
                status: .unauthorized, oauthError: "invalid_request",
                error: FederateError(.missingBearerToken, "send Authorization: \(presentations.map(\.scheme).joined(separator: " or ")) TOKEN"),
                presentations: presentations)
        }
        let caller: CallerIdentity
        do throws(FederateError) {
            caller = try await verifier.verifyCaller(credentials.token)
            try await presentation.confirm(caller, token: credentials.token, request: request)
        } catch where error.code == .introspectionFailed {
            throw BearerChallenge(status: .serviceUnavailable, oauthError: nil, error: error, presentations: [])
        } catch {
            throw BearerChallenge(status: .unauthorized, oauthError: "invalid_token", error: error, presentations: presentations)
        }
        try RequiredScopes.check(caller, requires: requiredScopes, presentations: presentations)
        return caller
    }
}
