public import Federate
import HTTPTypes

/// Establishes the caller's account session from the session cookie, or from
/// `Authorization: Bearer SESSION_TOKEN` (apps that hold the SDK's session token): the
/// framework-neutral work of the session middleware of FederateHummingbird and FederateVapor.
///
/// A state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must also
/// pass the CSRF check (`Origin` and `X-CSRF-Token`): the browser attaches cookies by itself, never an `Authorization` header.
/// With `required`, a request without a valid session is refused 401. When the account store
/// cannot answer, the request is refused 503 with `Retry-After`, required
/// or not: an unknown session is not a missing one.
public struct AccountSessionAuthenticator: Sendable {
    /// Verifies session tokens (signature, expiry, revocation, disabled users).
    package let accounts: AccountService
    /// The CSRF check for cookie-authenticated state changes.
    let csrf: CSRFCheck
    /// Whether a missing or invalid session is refused (else the request goes on without one).
    package let required: Bool

    /// Creates the authenticator for a server at `origin`.
    public init(accounts: AccountService, origin: String, required: Bool = true) {
        self.accounts = accounts
        self.csrf = CSRFCheck(origin: origin)
        self.required = required
    }

    /// The request's session; `nil` when it has none and none is required.
    public func authenticate(_ request: ServerRequest) async throws(FederateHTTPError) -> AccountSession? {
        let bearer = BearerToken.from(request.headers[.authorization])
        let secure = FederateServerConfiguration.usesSecureCookies(origin: csrf.origin)
        guard let token = bearer ?? request.cookie(SessionCookies.sessionName(secure: secure)) else {
            guard !required else { throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first") }
            return nil
        }
        let session: AccountSession
        do {
            session = try await accounts.verifySession(token)
        } catch {
            // A store that cannot answer says nothing about the session: 503, even when optional.
            if StoreOutage.isStoreFailure(error) { throw FederateHTTPError(.serviceUnavailable, error) }
            guard !required else { throw FederateHTTPError(.unauthorized, error) }
            return nil
        }
        if bearer == nil, CSRFCheck.isUnsafe(request.method.rawValue) {
            do throws(FederateError) {
                try csrf.verify(
                    origin: request.headers[.origin], referer: request.headers[.referer],
                    headerToken: request.headers[CSRFCheck.headerField],
                    cookieToken: request.cookie(SessionCookies.csrfName(secure: secure)))
            } catch {
                throw FederateHTTPError(.forbidden, error)
            }
        }
        return session
    }
}

/// Refuses a session whose sign-in is not recent (default: the account layer's window, 5
/// minutes) with 403 `requires_recent_login`, and, with a `requirement`, one whose `acr`/`amr`
/// do not meet it with 403 `insufficient_authentication_level` (step-up, `Docs/StepUp.md`). A
/// caller that sent its session token as `Authorization: Bearer` gets RFC 9470's 401 with
/// `WWW-Authenticate: Bearer error="insufficient_user_authentication"` instead, naming the
/// `acr_values` and `max_age` to sign in again with. The framework-neutral work of the
/// recent-login middleware of FederateHummingbird and FederateVapor.
public struct RecentLoginGuard: Sendable {
    /// Knows the window and the clock.
    package let accounts: AccountService
    /// The window; `nil` uses the account layer's.
    package let window: Duration?
    /// The `acr`/`amr` the session's authentication must show; `nil` checks recency only.
    package let requirement: AuthenticationRequirement?
    /// The API's RFC 9728 metadata, named in the step-up challenge.
    package let resource: ProtectedResourceMetadata?

    /// Creates the guard.
    public init(
        accounts: AccountService, within window: Duration? = nil, requirement: AuthenticationRequirement? = nil,
        resource: ProtectedResourceMetadata? = nil
    ) {
        self.accounts = accounts
        self.window = window
        self.requirement = requirement
        self.resource = resource
    }

    /// Throws unless `session` (of `request`, `nil` without one: 401 `session_required`) is recent and strong enough.
    public func check(_ session: AccountSession?, of request: ServerRequest) throws(FederateHTTPError) {
        guard let session else { throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first") }
        do throws(FederateError) {
            if let requirement { try requirement.check(session.authenticationLevel) }
            try accounts.requireRecentLogin(session, within: window)
        } catch {
            guard BearerToken.from(request.headers[.authorization]) != nil else { throw FederateHTTPError(.forbidden, error) }
            let maxAge = window ?? accounts.configuration.recentLoginWindow
            let description =
                error.code == .insufficientAuthenticationLevel
                ? "a stronger authentication is required" : "a more recent authentication is required"
            throw StepUpChallenge(acrValues: requirement?.acrValues ?? [], maxAge: maxAge, description: description)
                .error(error, resourceMetadata: resource?.metadataURL)
        }
    }
}
