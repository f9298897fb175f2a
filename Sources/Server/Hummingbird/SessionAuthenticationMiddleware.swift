public import Federate
public import Hummingbird

/// Establishes the caller's account session from the session cookie, or from
/// `Authorization: Bearer SESSION_TOKEN` (apps that hold the SDK's session token), and
/// records it in ``FederateAuthentication/session``.
///
/// A state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must also
/// pass ``CSRFCheck``: the browser attaches cookies by itself, never an `Authorization` header.
/// With `required`, a request without a valid session is answered 401. When the account store
/// cannot answer, the request is answered 503 with `Retry-After` (``StoreOutage``), required
/// or not: an unknown session is not a missing one.
public struct SessionAuthenticationMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Verifies session tokens (signature, expiry, revocation, disabled users).
    public let accounts: AccountService
    /// The CSRF check for cookie-authenticated state changes.
    public let csrf: CSRFCheck
    /// Whether a missing or invalid session is refused (else the request goes on without one).
    public let required: Bool

    /// Creates the middleware.
    public init(accounts: AccountService, origin: String, required: Bool = true) {
        self.accounts = accounts
        self.csrf = CSRFCheck(origin: origin)
        self.required = required
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let bearer = BearerToken.from(request.headers[.authorization])
        let secure = FederateServerConfiguration.usesSecureCookies(origin: csrf.origin)
        guard let token = bearer ?? request.cookies[SessionCookies.sessionName(secure: secure)]?.value else {
            guard !required else { throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first") }
            return try await next(request, context)
        }
        var context = context
        do {
            context.federate.session = try await accounts.verifySession(token)
        } catch {
            // A store that cannot answer says nothing about the session: 503, even when optional.
            if StoreOutage.isStoreFailure(error) { throw FederateHTTPError(.serviceUnavailable, error) }
            guard !required else { throw FederateHTTPError(.unauthorized, error) }
            return try await next(request, context)
        }
        if bearer == nil, CSRFCheck.isUnsafe(request.method.rawValue) {
            let headerToken = request.headers.first { $0.name.canonicalName == CSRFCheck.headerName.lowercased() }?.value
            let check = Result { () throws(FederateError) in
                try csrf.verify(
                    origin: request.headers[.origin], referer: request.headers[.referer], headerToken: headerToken,
                    cookieToken: request.cookies[SessionCookies.csrfName(secure: secure)]?.value)
            }
            if case .failure(let error) = check { throw FederateHTTPError(.forbidden, error) }
        }
        return try await next(request, context)
    }
}

/// Answers 403 `{"error": "requires_recent_login"}` unless the session's sign-in is recent
/// (default: the account layer's window, 5 minutes), and, with a ``requirement``, 403
/// `{"error": "insufficient_authentication_level"}` unless the session's `acr`/`amr` meet it
/// (step-up, `Docs/StepUp.md`). A caller that sent its session token as
/// `Authorization: Bearer` gets RFC 9470's 401 with
/// `WWW-Authenticate: Bearer error="insufficient_user_authentication"` instead, naming the
/// `acr_values` and `max_age` to sign in again with. Mount it after
/// ``SessionAuthenticationMiddleware`` on sensitive routes.
public struct RequireRecentLoginMiddleware<Context: FederateRequestContext>: RouterMiddleware {
    /// Knows the window and the clock.
    public let accounts: AccountService
    /// The window; `nil` uses the account layer's.
    public let window: Duration?
    /// The `acr`/`amr` the session's authentication must show; `nil` checks recency only.
    public let requirement: AuthenticationRequirement?

    /// Creates the middleware.
    public init(accounts: AccountService, within window: Duration? = nil, requirement: AuthenticationRequirement? = nil) {
        self.accounts = accounts
        self.window = window
        self.requirement = requirement
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let session = context.federate.session else {
            throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first")
        }
        do throws(FederateError) {
            if let requirement { try requirement.check(session.authenticationLevel) }
            try accounts.requireRecentLogin(session, within: window)
        } catch {
            guard BearerToken.from(request.headers[.authorization]) != nil else { throw FederateHTTPError(.forbidden, error) }
            let maxAge = window ?? accounts.configuration.recentLoginWindow
            let description = error.code == .insufficientAuthenticationLevel ? "a stronger authentication is required" : "a more recent authentication is required"
            throw StepUpChallenge(acrValues: requirement?.acrValues ?? [], maxAge: maxAge, description: description).error(error)
        }
        return try await next(request, context)
    }
}
