public import Federate
public import FederateServer
public import Hummingbird

/// Requires scopes of the caller a ``BearerAuthenticationMiddleware`` before it verified, for
/// the routes it is added to: a group that reads with `["orders:read"]`, one that writes with
/// `["orders:write"]`, behind one authentication middleware.
///
/// A caller without them is refused 403 `insufficient_scope` with `scope="…"` (RFC 6750 §3.1);
/// a request that reaches it without a verified caller, 401 `invalid_token`. Give it the
/// authentication's `presentations` and `resource`, so its challenges name the same schemes
/// and metadata.
public struct RequiredScopesMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// The scopes required.
    package let scopes: OAuthScopes
    /// The schemes the challenges name (those of the authentication middleware).
    package let presentations: [any TokenPresentation]
    /// The API's RFC 9728 metadata, named in the challenges.
    package let resource: ProtectedResourceMetadata?

    /// Creates the middleware.
    public init(
        _ scopes: OAuthScopes, presentations: [any TokenPresentation] = [BearerPresentation()], resource: ProtectedResourceMetadata? = nil
    ) {
        self.scopes = scopes
        self.presentations = presentations
        self.resource = resource
    }

    /// Calls `next` when the authenticated caller holds the route's scopes; otherwise 403
    /// `insufficient_scope` with the challenge naming them.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try BearerChallenge.requireScopes(scopes, of: context.federate.caller, presentations: presentations, resource: resource)
        return try await next(request, context)
    }
}
