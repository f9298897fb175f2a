public import Federate
public import FederateServer
public import Vapor

/// Establishes the caller's account session from the session cookie, or from
/// `Authorization: Bearer SESSION_TOKEN` (apps that hold the SDK's session token), and records
/// it in `req.federate.session`: FederateServer's `AccountSessionAuthenticator` on a route group.
///
/// A state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must also
/// pass the CSRF check (`Origin` and `X-CSRF-Token`, 403 `csrf_failed`). With `required`, a
/// request without a valid session is answered 401 `session_required`. When the account store
/// cannot answer, 503 with `Retry-After`, required or not.
public struct SessionAuthenticationMiddleware: AsyncMiddleware {
    /// The authentication.
    public let authenticator: AccountSessionAuthenticator

    /// Creates the middleware for a server at `origin`.
    public init(accounts: AccountService, origin: String, required: Bool = true) {
        authenticator = AccountSessionAuthenticator(accounts: accounts, origin: origin, required: required)
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do throws(FederateHTTPError) {
            request.federate.session = try await authenticator.authenticate(ServerRequest(request))
        } catch {
            return Response(error.serverResponse)
        }
        return try await next.respond(to: request)
    }
}

/// Answers 403 `requires_recent_login` unless the session's sign-in is recent (default: the
/// account layer's window), and, with a `requirement`, 403 `insufficient_authentication_level`
/// unless its `acr`/`amr` meet it (step-up, `Docs/StepUp.md`); RFC 9470's 401 challenge for a
/// caller that sent its session token as `Authorization: Bearer` (FederateServer's
/// `RecentLoginGuard`). Mount it after ``SessionAuthenticationMiddleware`` on sensitive routes.
public struct RequireRecentLoginMiddleware: AsyncMiddleware {
    /// The check.
    public let guarding: RecentLoginGuard

    /// Creates the middleware.
    public init(
        accounts: AccountService, within window: Duration? = nil, requirement: AuthenticationRequirement? = nil,
        resource: ProtectedResourceMetadata? = nil
    ) {
        guarding = RecentLoginGuard(accounts: accounts, within: window, requirement: requirement, resource: resource)
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do throws(FederateHTTPError) {
            try guarding.check(request.federate.session, of: ServerRequest(request))
        } catch {
            return Response(error.serverResponse)
        }
        return try await next.respond(to: request)
    }
}
