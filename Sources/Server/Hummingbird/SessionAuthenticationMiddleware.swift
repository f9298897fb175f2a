public import Federate
public import FederateServer
public import Hummingbird

/// Establishes the caller's account session from the session cookie, or from
/// `Authorization: Bearer SESSION_TOKEN` (apps that hold the SDK's session token), and
/// records it in `FederateAuthentication/session`: `AccountSessionAuthenticator` (FederateServer)
/// on a route group.
///
/// A state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must also
/// pass `CSRFCheck`. With `required`, a request without a valid session is answered 401. When
/// the account store cannot answer, the request is answered 503 with `Retry-After`
/// (`StoreOutage`), required or not: an unknown session is not a missing one.
public struct SessionAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// The authentication.
    package let authenticator: AccountSessionAuthenticator

    /// Creates the middleware.
    public init(accounts: AccountService, origin: String, required: Bool = true) {
        authenticator = AccountSessionAuthenticator(accounts: accounts, origin: origin, required: required)
    }

    /// Puts the request's valid session in `context.federate.session` (CSRF checked on
    /// state-changing requests) and calls `next`; 401 without one when `required`.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.federate.session = try await authenticator.authenticate(ServerRequest(request))
        return try await next(request, context)
    }
}

/// Answers 403 `{"error": "requires_recent_login"}` unless the session's sign-in is recent
/// (default: the account layer's window, 5 minutes), and, with a `requirement`, 403
/// `{"error": "insufficient_authentication_level"}` unless the session's `acr`/`amr` meet it
/// (step-up, `Docs/StepUp.md`); RFC 9470's 401 challenge for a caller that sent its session token
/// as `Authorization: Bearer` (`RecentLoginGuard`). Mount it after
/// ``SessionAuthenticationMiddleware`` on sensitive routes.
public struct RequireRecentLoginMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// The check.
    package let guarding: RecentLoginGuard

    /// Creates the middleware.
    public init(
        accounts: AccountService, within window: Duration? = nil, requirement: AuthenticationRequirement? = nil,
        resource: ProtectedResourceMetadata? = nil
    ) {
        guarding = RecentLoginGuard(accounts: accounts, within: window, requirement: requirement, resource: resource)
    }

    /// Calls `next` when the session's sign-in is recent (and meets the `requirement`);
    /// otherwise 403 as described above.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try guarding.check(context.federate.session, of: ServerRequest(request))
        return try await next(request, context)
    }
}
