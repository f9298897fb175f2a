import Federate
import Foundation
public import Hummingbird
public import Logging

/// The routes a server mounts for federated login, with one call:
///
/// ```swift
/// let router = Router(context: FederateContext.self)
/// FederateRoutes(configuration: configuration).register(on: router)
/// ```
///
/// - `GET {auth}/{provider}/start?intent=signIn|link|reauthenticate&returnTo=/path&login_hint=HINT`
///   redirects to the provider (passing `login_hint` on, ``SignInRequest``) (with `acr_values=phr%20phrh` and/or `max_age=SECONDS`, a step-up
///   sign-in: the ID token's `acr` must be one of the values, `Docs/StepUp.md`); the pending authorization (with `returnTo` and, for link and
///   reauthenticate, the signed-in uid) is sealed into a cookie, so any instance finishes it.
/// - `GET|POST {auth}/{provider}/callback` (query, or Apple's cross-site `form_post`): checks
///   `state` against the sealed cookie (the callback's CSRF protection), completes the sign-in,
///   hands the credential to the account layer, sets the session cookie (rotated on
///   reauthentication) and redirects (303) to `returnTo`, which is always a same-site path.
/// - `POST {auth}/signout`; `GET /me` (user, linked providers with their route names, session
///   age, whether the sign-in is recent, the sign-in's `acr` and `amr` when the provider
///   asserted them, and a CSRF token);
///   `DELETE /me/providers/{providerID}` (unlink); `DELETE /me` (delete the account and revoke
///   its provider tokens). State-changing routes need the CSRF header; unlink and delete need a
///   recent sign-in (`requires_recent_login`, 403).
/// - `POST {auth}/guest` (a guest account) and `POST /me/merge` (merge after
///   `credential_already_in_use`), documented in Docs/Server.md. A guest's link upgrades it in place and
///   rotates its cookie to a full session.
/// - `GET` each of ``FederateServerConfiguration/staticFiles`` (Apple's domain association), answered 200 directly (Apple's
///   check follows no redirect) when configured.
public struct FederateRoutes<Context: FederateRequestContext>: Sendable {
    /// What the routes serve.
    public let configuration: FederateServerConfiguration
    private let logger: Logger

    /// Creates the routes.
    public init(configuration: FederateServerConfiguration, logger: Logger = Logger(label: "federate.server")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Registers every route on `router`.
    public func register(on router: Router<Context>) {
        let accounts = configuration.accounts, origin = configuration.origin
        let auth = router.group(RouterPath(configuration.authPath))
        auth.get("{provider}/start") { request, context in try await self.start(request, context: context) }
        auth.get("{provider}/callback") { request, context in
            try await self.callback(request, context: context, parameters: request.uri.query ?? "", isForm: false)
        }
        auth.post("{provider}/callback") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024)
            return try await self.callback(request, context: context, parameters: String(buffer: body), isForm: true)
        }
        // What providers POST out of band: back-channel logout, Apple's notifications, Google's RISC events.
        for route in ProviderEventRoute.allCases {
            auth.post("{provider}/\(route.rawValue)") { request, context in try await self.receiveEvents(route, request, context: context) }
        }
        auth.group("signout").add(middleware: SessionAuthenticationMiddleware<Context>(accounts: accounts, origin: origin))
            .post { _, context in try await self.signOut(context: context) }

        let me = router.group("me").add(middleware: SessionAuthenticationMiddleware<Context>(accounts: accounts, origin: origin))
        me.get { request, context in try await self.me(request, context: context) }
        me.delete("providers/{providerID}") { _, context in try await self.unlink(context: context) }
        me.delete { _, context in try await self.deleteAccount(context: context) }
        MergeRoutes<Context>(configuration: configuration).register(auth: auth, me: me)

        for (path, contents) in configuration.staticFiles {
            router.get(RouterPath(path)) { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: contents)))
            }
        }
    }

    // MARK: Sign-in flow

    private func start(_ request: Request, context: Context) async throws -> Response {
        let entry = try provider(context)
        let name = entry.name
        let query = request.uri.queryParameters
        guard let intent = AuthorizationIntent(rawValue: query["intent"].map(String.init) ?? "signIn") else {
            throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "intent is signIn, link or reauthenticate")
        }
        let stepUp = try StepUpQuery.parse(acrValues: query["acr_values"].map(String.init), maxAge: query["max_age"].map(String.init))
        var uid: String?
        if intent != .signIn {
            guard let session = try await currentSession(request) else {
                throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "\(intent.rawValue) needs a signed-in user")
            }
            uid = session.uid
        }
        let stepping = entry.capabilities.stepUp
        if stepUp != nil, stepping == nil {
            throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "this provider cannot be asked for acr_values or max_age")
        }
        let signIn = try SignInRequest(
            redirectURI: configuration.redirectURI(for: name), intent: intent, loginHint: query["login_hint"].map(String.init))
        let built: BuiltAuthorizationRequest
        do {
            if let stepUp, let stepping {
                built = try await stepping.beginSignIn(signIn, stepUp: stepUp)
            } else {
                built = try await entry.provider.beginSignIn(signIn)
            }
        } catch {
            // The provider (its discovery or keys) is unreachable or refused: a bad gateway.
            logger.notice("sign-in could not start", metadata: ["provider": "\(name)", "error": "\(error.code)"])
            throw FederateHTTPError(.badGateway, error)
        }
        var pending = built.pending
        pending.returnTo = ReturnTo.sanitize(query["returnTo"].map(String.init), fallback: configuration.defaultReturnTo)
        pending.uid = uid
        let path = configuration.authPath + "/" + name
        var response = Response(status: .found, headers: [.location: built.url, .cacheControl: "no-store"])
        response.setCookie(SessionCookies.pending(
            try configuration.sealer.seal(pending), state: pending.state, path: path, secure: configuration.secureCookies,
            formPost: pending.responseMode == .formPost))
        // One cookie per flow, so sign-ins started in several tabs all complete; past the
        // cap, the oldest flows are dropped.
        for evicted in evictedFlows(request) {
            response.setCookie(SessionCookies.deletingPending(
                name: evicted.name, path: path, secure: configuration.secureCookies, formPost: evicted.formPost))
        }
        return response
    }

    /// The route's provider, or 404 `unknown_provider`.
    private func provider(_ context: Context) throws(FederateHTTPError) -> ProviderRegistry.Entry {
        guard let name = context.parameters.get("provider"), let entry = configuration.providers.entry(named: name) else {
            throw FederateHTTPError(.notFound, code: .unknownProvider, message: "no provider by this name is configured")
        }
        return entry
    }

    /// The pending flows to drop so that, with the one being started, at most
    /// ``SessionCookies/maximumPendingFlows`` remain: the oldest, and any that no longer opens.
    private func evictedFlows(_ request: Request) -> [(name: String, formPost: Bool)] {
        var flows: [(name: String, createdAt: Date, formPost: Bool)] = []
        var evicted: [(name: String, formPost: Bool)] = []
        let now = configuration.accounts.clock.now
        for (name, value) in SessionCookies.pendingFlows(in: request) {
            if let pending = try? configuration.sealer.open(value, now: now) {
                flows.append((name, pending.createdAt, pending.responseMode == .formPost))
            } else {
                evicted.append((name, false))
            }
        }
        let excess = flows.count - (SessionCookies.maximumPendingFlows - 1)
        if excess > 0 {
            evicted += flows.sorted { $0.createdAt < $1.createdAt }.prefix(excess).map { ($0.name, $0.formPost) }
        }
        return evicted
    }

    private func callback(_ request: Request, context: Context, parameters: String, isForm: Bool) async throws -> Response {
        let entry = try provider(context)
        let name = entry.name, provider = entry.provider
        let path = configuration.authPath + "/" + name
        // The flow is found by the callback's `state`. Without a state, or with one no flow of
        // this browser has, the callback is refused and every flow in progress is left as it
        // is: a forged callback (an `error=…` link without state) cannot end a real sign-in.
        let callback: AuthorizationResponse
        let pending: PendingAuthorization
        let cookieName: String
        do {
            callback = isForm ? try AuthorizationResponse(formBody: Array(parameters.utf8)) : try AuthorizationResponse(query: parameters)
            guard let state = callback.parameters["state"], !state.isEmpty else {
                throw FederateError(.stateMismatch, "the callback has no state")
            }
            cookieName = SessionCookies.pendingName(state: state)
            guard let sealed = request.cookies[cookieName]?.value else {
                throw FederateError(.stateMismatch, "no sign-in in progress in this browser has this state")
            }
            pending = try configuration.sealer.open(sealed, now: configuration.accounts.clock.now)
            guard pending.providerID.exactlyEquals(provider.providerID) else {
                throw FederateError(.invalidPendingAuthorization, "the sign-in in progress is for another provider")
            }
        } catch let error as FederateError {
            logger.notice("callback refused", metadata: ["provider": "\(name)", "error": "\(error.code)"])
            throw CallbackFailure(error: error, returnTo: configuration.defaultReturnTo, clearing: nil)
        }
        let clear = SessionCookies.deletingPending(
            name: cookieName, path: path, secure: configuration.secureCookies, formPost: pending.responseMode == .formPost)
        let returnTo = pending.returnTo ?? configuration.defaultReturnTo
        let token: String?
        do {
            token = try await finish(pending, credential: try await provider.completeSignIn(callback, pending: pending), request: request)
        } catch let error as FederateError {
            logger.notice("sign-in failed", metadata: ["provider": "\(name)", "error": "\(error.code)"])
            // A link refused because the identity is another account's: the merge ticket goes
            // back to this browser only, in an HttpOnly cookie, for POST /me/merge.
            let ticket = error.accountContext?.mergeTicket.map {
                MergeRoutes<Context>.ticketCookie($0, maxAge: configuration.accounts.configuration.mergeTicketLifetime, secure: configuration.secureCookies)
            }
            throw CallbackFailure(error: error, returnTo: returnTo, clearing: clear, setting: ticket)
        } catch let error as FederateHTTPError {
            logger.notice("sign-in failed", metadata: ["provider": "\(name)", "error": "\(error.error.code)"])
            throw CallbackFailure(error: error.error, returnTo: returnTo, clearing: clear)
        }
        var response = Response(status: .seeOther, headers: [.location: returnTo, .cacheControl: "no-store"])
        response.setCookie(clear)
        if let token {
            let maxAge = Int(configuration.accounts.configuration.sessionLifetime.wholeSeconds)
            response.setCookie(SessionCookies.session(token, maxAge: maxAge, secure: configuration.secureCookies))
        }
        return response
    }

    // MARK: Provider events

    /// Verifies a provider's delivery, refuses a replayed one through the store (every
    /// instance sees every delivery ID), and applies its events to the accounts. Answers as
    /// each provider expects: 200 with `Cache-Control: no-store` for back-channel logout
    /// (Back-Channel Logout 1.0 §2.8), 200 for Apple, 202 for RISC; 400 with a JSON error
    /// otherwise, and 503 with `Retry-After` when the store fails, so the provider retries.
    ///
    /// A logout token is single use: its ID is consumed before its events are applied, and a
    /// replay is refused. Apple's and RISC's deliveries are idempotent and retried by their
    /// provider until acknowledged: their ID is consumed only once their events are applied,
    /// so a store failure midway leaves the retry to do the work; a delivery already applied
    /// is acknowledged again, without effect.
    private func receiveEvents(_ route: ProviderEventRoute, _ request: Request, context: Context) async throws -> Response {
        guard let name = context.parameters.get("provider"), let source = configuration.providers.entry(named: name)?.capabilities.events,
            source.eventRoutes.contains(route)
        else {
            throw FederateHTTPError(.notFound, code: .unknownProvider, message: "no provider by this name receives \(route.rawValue)")
        }
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let accepted: HTTPResponse.Status = route == .risc ? .accepted : .ok
        do throws(FederateError) {
            let batch = try await source.receiveEvents(on: route, body: Array(buffer: body))
            let store = configuration.accounts.store
            let now = configuration.accounts.clock.now
            let acknowledged = Response(status: accepted, headers: [.cacheControl: "no-store"])
            guard let id = batch.deliveryID else {
                for event in batch.events { try await configuration.accounts.apply(event) }
                return acknowledged
            }
            if route == .backChannelLogout {
                guard try await store.consumeEventID(id, expiresAt: now.adding(batch.rememberFor), now: now) else {
                    throw FederateError(.invalidLogoutToken, "this logout token was already received")
                }
                for event in batch.events { try await configuration.accounts.apply(event) }
                return acknowledged
            }
            if try await store.hasConsumedEventID(id, now: now) { return acknowledged }
            for event in batch.events { try await configuration.accounts.apply(event) }
            _ = try await store.consumeEventID(id, expiresAt: now.adding(batch.rememberFor), now: now)
            return acknowledged
        } catch {
            logger.notice("provider event refused", metadata: ["provider": "\(name)", "route": "\(route.rawValue)", "error": "\(error.code)"])
            throw ProviderEventRefusal(error: error)
        }
    }

    /// Hands the credential to the account layer for the flow's intent; returns a new
    /// session token when the browser gets one (sign-in, reauthentication).
    private func finish(_ pending: PendingAuthorization, credential: Credential, request: Request) async throws -> String? {
        let accounts = configuration.accounts
        switch pending.intent {
        case .signIn:
            return try await accounts.signIn(with: credential).sessionToken
        case .link, .reauthenticate:
            // The browser must still hold the session that started the flow.
            guard let uid = pending.uid, let session = try await currentSession(request), session.uid.exactlyEquals(uid) else {
                throw FederateError(.userMismatch, "the signed-in user changed during the flow")
            }
            if pending.intent == .link {
                // A guest that links is upgraded and gets a full session: the guest's one ends.
                guard let token = try await accounts.link(uid, with: credential).sessionToken else { return nil }
                try await accounts.signOut(session)
                return token
            }
            // The provider must have signed the user in again since this flow began.
            let fresh = try await accounts.reauthenticate(uid, with: credential, authenticatedAfter: pending.createdAt)
            try await accounts.signOut(session)  // rotate: the old session ends
            return fresh.sessionToken
        }
    }

    /// The browser's session, `nil` when it has none or an invalid one; a store that cannot
    /// answer is 503 (``StoreOutage``), not "no session".
    private func currentSession(_ request: Request) async throws(FederateHTTPError) -> AccountSession? {
        guard let token = request.cookies[SessionCookies.sessionName(secure: configuration.secureCookies)]?.value else { return nil }
        do {
            return try await configuration.accounts.verifySession(token)
        } catch {
            if StoreOutage.isStoreFailure(error) { throw FederateHTTPError(.serviceUnavailable, error) }
            return nil
        }
    }

    // MARK: JSON API

    private func me(_ request: Request, context: Context) async throws -> Response {
        let session = try requireSession(context)
        let user = try await configuration.accounts.user(uid: session.uid)
        let csrfName = SessionCookies.csrfName(secure: configuration.secureCookies)
        let sentCSRF = request.cookies[csrfName]?.value
        let csrf = sentCSRF ?? SecureRandom.token(byteCount: 32)
        let now = configuration.accounts.clock.now
        var body: [String: JSONValue] = [
            "uid": .string(user.uid), "email_verified": .bool(user.emailVerified), "guest": .bool(user.isGuest),
            "providers": .array(user.identities.map { identity in
                let route = configuration.providers.entry(providerID: identity.providerID)?.name
                return .object([
                    "provider_id": .string(identity.providerID), "email": identity.email.map(JSONValue.string) ?? .null,
                    "route": route.map(JSONValue.string) ?? .null,
                ])
            }),
            "auth_time": .integer(SafeNumber.clampedInt64(session.authTime.timeIntervalSince1970)),
            "session_age_seconds": .integer(SafeNumber.clampedInt64(now.timeIntervalSince(session.authTime))),
            "recent_login": .bool((try? configuration.accounts.requireRecentLogin(session)) != nil),
            "csrf_token": .string(csrf),
        ]
        if let email = user.email { body["email"] = .string(email) }
        if let name = user.displayName { body["display_name"] = .string(name) }
        if let acr = session.acr { body["acr"] = .string(acr) }
        if !session.amr.isEmpty { body["amr"] = .array(session.amr.map(JSONValue.string)) }
        var response = jsonResponse(body)
        if sentCSRF == nil { response.setCookie(SessionCookies.csrf(csrf, secure: configuration.secureCookies)) }
        return response
    }

    private func unlink(context: Context) async throws -> Response {
        let session = try requireSession(context)
        guard let providerID = context.parameters.get("providerID") else {
            throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "name the provider to unlink")
        }
        let user = try await configuration.accounts.unlink(session, providerID: providerID)
        return jsonResponse(["uid": .string(user.uid), "providers": .array(user.providerIDs.map(JSONValue.string))])
    }

    private func deleteAccount(context: Context) async throws -> Response {
        let revocable = try await configuration.accounts.delete(try requireSession(context))
        var revoked = 0
        for entry in revocable {
            guard let provider = configuration.providers.entry(providerID: entry.providerID)?.provider else { continue }
            do {
                try await provider.revoke(entry.tokens)
                revoked += 1
            } catch {
                logger.warning("revoking a deleted account's provider tokens failed", metadata: ["provider": "\(entry.providerID)"])
            }
        }
        var response = jsonResponse(["deleted": true, "revoked": .integer(Int64(revoked))])
        response.setCookie(SessionCookies.deletingSession(secure: configuration.secureCookies))
        return response
    }

    /// Signs the session out. When the session's provider can end its own session
    /// (``ProviderCapabilities/logout``), the answer carries `end_session_url`, where the page may send
    /// the browser next (RP-Initiated Logout 1.0).
    private func signOut(context: Context) async throws -> Response {
        var body: [String: JSONValue] = ["signed_out": true]
        if let session = context.federate.session {
            try await configuration.accounts.signOut(session)
            if let providerID = session.provider?.providerID,
                let source = configuration.providers.entry(providerID: providerID)?.capabilities.logout,
                let url = try? await source.endSessionURL(postLogoutRedirectURI: nil)
            {
                body["end_session_url"] = .string(url)
            }
        }
        var response = jsonResponse(body)
        response.setCookie(SessionCookies.deletingSession(secure: configuration.secureCookies))
        return response
    }

    /// The request's session, or 401 `session_required`.
    private func requireSession(_ context: Context) throws(FederateHTTPError) -> AccountSession {
        guard let session = context.federate.session else {
            throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first")
        }
        return session
    }

    private func jsonResponse(_ body: [String: JSONValue]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(.object(body)))))
    }
}
