public import Federate
public import Hummingbird

/// Requires scopes of the caller a ``BearerAuthenticationMiddleware`` before it verified, for
/// the routes it is added to: a group that reads with `["orders:read"]`, one that writes with
/// `["orders:write"]`, behind one authentication middleware.
///
/// A caller without them is refused 403 `insufficient_scope` with `scope="…"` (RFC 6750 §3.1);
/// a request that reaches it without a verified caller, 401 `invalid_token`.
public struct RequiredScopesMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// The scopes required.
    public let scopes: OAuthScopes
    /// The schemes the challenges name (those of the authentication middleware).
    public let presentations: [any TokenPresentation]

    /// Creates the middleware.
    public init(_ scopes: OAuthScopes, presentations: [any TokenPresentation] = [BearerPresentation()]) {
        self.scopes = scopes
        self.presentations = presentations
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let caller = context.federate.caller else {
            throw BearerChallenge(
                status: .unauthorized, oauthError: "invalid_token",
                error: FederateError(.missingBearerToken, "no verified caller: add BearerAuthenticationMiddleware before this one"),
                presentations: presentations)
        }
        try RequiredScopes.check(caller, requires: scopes, presentations: presentations)
        return try await next(request, context)
    }
}

/// The one scope check of the API middleware.
enum RequiredScopes {
    static func check(_ caller: CallerIdentity, requires scopes: OAuthScopes, presentations: [any TokenPresentation]) throws(BearerChallenge) {
        let missing = caller.scopes.missing(from: scopes)
        guard missing.isEmpty else {
            throw BearerChallenge(
                status: .forbidden, oauthError: "insufficient_scope",
                error: FederateError(.insufficientScope, "the token lacks the scope \(missing.joined(separator: " "))"),
                presentations: presentations, scope: scopes)
        }
    }
}
