public import Federate
public import FederateServer
public import Hummingbird

/// Requires a verified token in `Authorization` and records who the caller is in
/// `FederateAuthentication/caller` (and, for an ID token, `FederateAuthentication/bearer`):
/// `CallerAuthenticator` (FederateServer) on a route group.
///
/// ```swift
/// router.group("api")
///     .add(middleware: BearerAuthenticationMiddleware<FederateContext>(
///         verifier: CallerTokenRouter(idTokens: google, accessTokens: accessTokens), requiredScopes: ["orders:read"]))
/// ```
///
/// The presentation (`BearerPresentation`, `DPoPPresentation`), the verification, the
/// binding and the scopes are the authenticator's; so are its refusals, RFC 6750 §3 challenges
/// (`BearerChallenge`) naming the API's RFC 9728 metadata when it is given `resource`
/// (serve the metadata itself with ``ProtectedResourceRoutes``).
public struct BearerAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// The authentication.
    package let authenticator: CallerAuthenticator

    /// Creates the middleware: `verifier` verifies the tokens of every kind the route group accepts.
    public init(
        verifier: any TokenVerifier, requiredScopes: OAuthScopes = [],
        presentations: [any TokenPresentation] = [BearerPresentation()],
        resource: ProtectedResourceMetadata? = nil
    ) {
        authenticator = CallerAuthenticator(
            verifier: verifier, requiredScopes: requiredScopes, presentations: presentations, resource: resource)
    }

    /// The verifier.
    package var verifier: any TokenVerifier { authenticator.verifier }
    /// The scopes every request must have been granted.
    package var requiredScopes: OAuthScopes { authenticator.requiredScopes }
    /// The schemes accepted, in the order challenges list them.
    package var presentations: [any TokenPresentation] { authenticator.presentations }

    /// Authenticates the request's token and calls `next` with the caller in `context.federate`;
    /// otherwise answers 400, 401 or 403 with the challenge of each accepted scheme.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Warm keys and a `Bearer` token: authenticated without leaving the request's executor
        // (Docs/Performance.md, "The server").
        let authenticated = try await authenticator.authenticate(ServerRequest(request))
        var context = context
        context.federate.caller = authenticated.caller
        var response = try await next(request, context)
        for field in authenticated.responseFields { response.headers.append(field) }
        return response
    }

    /// The caller `request` proves to be, or the refusal (a `BearerChallenge`). Runs on the
    /// caller's executor.
    package nonisolated(nonsending) func authenticate(_ request: Request) async throws(BearerChallenge) -> VerifiedToken {
        try await authenticator.authenticate(ServerRequest(request)).caller
    }
}
