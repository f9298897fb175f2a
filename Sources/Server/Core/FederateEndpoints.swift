import Federate
import Foundation
import HTTPTypes
public import Logging

/// The routes of federated login, framework-neutral: each of ``routes`` takes a
/// ``ServerRequest`` and answers a ``ServerResponse``, errors included. FederateHummingbird's
/// `FederateRoutes` and FederateVapor's mount them, and add nothing of their own.
///
/// - `GET {auth}/{provider}/start?intent=signIn|link|reauthenticate&returnTo=/path&login_hint=HINT`
///   redirects to the provider (with `acr_values` and/or `max_age`, a step-up sign-in,
///   `Docs/StepUp.md`); the pending authorization (with `returnTo` and, for link and
///   reauthenticate, the signed-in uid) is sealed into a cookie, so any instance finishes it.
/// - `GET|POST {auth}/{provider}/callback` (query, or Apple's cross-site `form_post`): checks
///   `state` against the sealed cookie (the callback's CSRF protection), completes the sign-in,
///   hands the credential to the account layer, sets the session cookie (rotated on
///   reauthentication) and redirects (303) to `returnTo`, always a same-site path.
/// - `POST {auth}/{provider}/backchannel-logout`, `…/notifications`, `…/risc`: what providers
///   POST out of band (back-channel logout, Apple's notifications, Google's RISC events).
/// - The JSON API behind the session authentication: `POST {auth}/signout` (and
///   `GET {auth}/signout/callback`, the provider's return), `GET /me`,
///   `DELETE /me/providers/{providerID}`, `DELETE /me`.
/// - `POST {auth}/guest` (with ``FederateServerConfiguration/allowsGuests``) and
///   `POST /me/merge` (after a link refused with `credential_already_in_use`).
/// - `GET` each of the configuration's static files (Apple's domain association).
public struct FederateEndpoints: Sendable {
    /// What the routes serve.
    package let configuration: FederateServerConfiguration
    let logger: Logger
    /// `POST {auth}/guest`'s limit per client.
    let guestLimiter: ClientRateLimiter
    /// The anonymous passkey routes' limit per client.
    let passkeyLimiter: ClientRateLimiter
    /// ``FederateServerConfiguration/trustedProxies``, read once.
    let trustedProxies: Set<IPAddress>

    /// Creates the endpoints.
    public init(configuration: FederateServerConfiguration, logger: Logger = Logger(label: "federate.server")) {
        self.configuration = configuration
        self.logger = logger
        self.guestLimiter = ClientRateLimiter(configuration.guestRateLimit)
        self.passkeyLimiter = ClientRateLimiter(configuration.passkeyRateLimit)
        self.trustedProxies = ClientAddress.proxies(configuration.trustedProxies, logger: logger)
    }

    /// The largest callback form or provider delivery read (64 KiB).
    package static let maximumBodyBytes = 64 * 1024

    /// `work`'s response, or the answer of the error it threw.
    func respond(_ work: () async throws -> ServerResponse) async -> ServerResponse {
        do {
            return try await work()
        } catch let error as any ServerResponseError {
            return error.serverResponse
        } catch {
            logger.error("a route failed with an error that is not Federate's", metadata: ["type": "\(type(of: error))"])
            return ErrorResponse.json(.internalServerError, code: .internalError, message: "the server failed")
        }
    }

    /// The route's provider, or 404 `unknown_provider`.
    func provider(named name: String) throws(FederateHTTPError) -> ProviderRegistry.Entry {
        guard let entry = configuration.providers.entry(named: name) else {
            throw FederateHTTPError(.notFound, code: .unknownProvider, message: "no provider by this name is configured")
        }
        return entry
    }

    /// The request's session, or 401 `session_required`.
    func requireSession(_ session: AccountSession?) throws(FederateHTTPError) -> AccountSession {
        guard let session else { throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first") }
        return session
    }

    /// The browser's session, `nil` when it has none or an invalid one; a store that cannot
    /// answer is 503, not "no session".
    func currentSession(_ request: ServerRequest) async throws(FederateHTTPError) -> AccountSession? {
        guard let token = request.cookie(SessionCookies.sessionName(secure: configuration.secureCookies)) else { return nil }
        do {
            return try await configuration.accounts.verifySession(token)
        } catch {
            if StoreOutage.isStoreFailure(error) { throw FederateHTTPError(.serviceUnavailable, error) }
            return nil
        }
    }

    /// The file of the configuration's `staticFiles` at exactly `path`, 200 as plain
    /// text; `nil` when none is configured there.
    /// An anonymous request that changes state: same-site (`Origin`, or `Referer`; else 403
    /// `csrf_failed`), and within the client's share of `limiter` (else 429 `rate_limited` with
    /// `Retry-After`; `what` names what is limited, in the message).
    func checkAnonymous(_ request: ServerRequest, limiter: ClientRateLimiter, what: String) throws(FederateHTTPError) {
        let claimed = request.header(.origin) ?? request.header(.referer).map(CSRFCheck.origin(ofURL:))
        guard let claimed, claimed.utf8.elementsEqual(configuration.origin.utf8) else {
            throw FederateHTTPError(.forbidden, code: .csrfFailed, message: "the request does not come from this site (Origin/Referer)")
        }
        if let wait = limiter.acquire(ClientAddress.key(of: request, trustedProxies: trustedProxies), now: configuration.accounts.clock.now)
        {
            throw FederateHTTPError(
                .tooManyRequests, code: .rateLimited, message: "too many \(what) from this client: try again later",
                headers: [.retryAfter: String(wait.wholeSeconds)])
        }
    }

    func staticFile(at path: String) -> ServerResponse? {
        guard let contents = configuration.staticFiles.first(where: { $0.key.utf8.elementsEqual(path.utf8) })?.value else { return nil }
        return ServerResponse(status: .ok, headers: [.contentType: "text/plain"], body: Array(contents.utf8))
    }
}

extension FederateError.Code {
    /// A route failed with an error that is not Federate's own (answered 500): a bug, its type
    /// logged, never its text.
    static let internalError: Self = "internal_error"
}
