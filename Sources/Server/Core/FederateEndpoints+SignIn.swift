import Federate
import Foundation
import HTTPTypes

extension FederateEndpoints {
    /// `GET {auth}/{provider}/start`: redirects (302) to the provider, the pending authorization
    /// sealed into a cookie of its own; 400 `invalid_request` for a bad `intent`, step-up
    /// parameter or `login_hint`, 403 `csrf_failed` for a link or reauthentication that is not
    /// a navigation from this site's own pages (`Sec-Fetch-Site: same-origin`), 401 for a link or
    /// reauthentication without a session, 404 for an unknown provider, 502 when the provider
    /// cannot be reached.
    package func start(_ request: ServerRequest, provider name: String) async -> ServerResponse {
        await respond { try await startSignIn(request, provider: name) }
    }

    private func startSignIn(_ request: ServerRequest, provider name: String) async throws -> ServerResponse {
        let entry = try provider(named: name)
        let query = request.queryParameters()
        guard let intent = AuthorizationIntent(rawValue: query["intent"] ?? "signIn") else {
            throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "intent is signIn, link or reauthenticate")
        }
        let stepUp = try StepUpQuery.parse(acrValues: query["acr_values"], maxAge: query["max_age"])
        var session: AccountSession?
        if intent != .signIn {
            // It acts for the signed-in account: only this site's own pages may start it (403).
            try CSRFCheck.requireSameOriginNavigation(request)
            session = try await currentSession(request)
            guard session != nil else {
                throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "\(intent.rawValue) needs a signed-in user")
            }
        }
        let signIn = try SignInRequest(
            redirectURI: configuration.redirectURI(for: entry.name), intent: intent, loginHint: query["login_hint"])
        let built: BuiltAuthorizationRequest
        do {
            built = try await configuration.accounts.beginSignIn(with: entry.provider, signIn, session: session, stepUp: stepUp)
        } catch  where error.code == .providerCannotReauthenticate {
            // A provider that cannot prove a fresh sign-in: back to the page, which offers the others.
            return callbackFailure(
                error, returnTo: ReturnTo.sanitize(query["returnTo"], fallback: configuration.defaultReturnTo), clearing: nil)
        } catch  where error.code == .invalidRequest {
            throw FederateHTTPError(.badRequest, error)  // step-up asked of a provider without that capability
        } catch {
            // The provider (its discovery or keys) is unreachable or refused: a bad gateway.
            logger.notice("sign-in could not start", metadata: ["provider": "\(entry.name)", "error": "\(error.code)"])
            throw FederateHTTPError(.badGateway, error)
        }
        var pending = built.pending
        pending.returnTo = ReturnTo.sanitize(query["returnTo"], fallback: configuration.defaultReturnTo)
        let path = configuration.authPath + "/" + entry.name
        var response = ServerResponse.redirect(.found, to: built.url)
        response.setCookie(
            SessionCookies.pending(
                try configuration.sealer.seal(pending), state: pending.state, path: path, secure: configuration.secureCookies,
                formPost: pending.responseMode == .formPost))
        // One cookie per flow, so sign-ins started in several tabs all complete; past the
        // cap, the oldest flows are dropped.
        for evicted in evictedFlows(request) {
            response.setCookie(
                SessionCookies.deletingPending(
                    name: evicted.name, path: path, secure: configuration.secureCookies, formPost: evicted.formPost))
        }
        return response
    }

    /// The pending flows to drop so that, with the one being started, at most
    /// ``SessionCookies/maximumPendingFlows`` remain: the oldest, and any that no longer opens.
    private func evictedFlows(_ request: ServerRequest) -> [(name: String, formPost: Bool)] {
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

    /// `GET|POST {auth}/{provider}/callback`: the query's parameters, or with `form` (a POST's
    /// body, at most ``maximumBodyBytes``) the form's. Redirects (303) to `returnTo`, or on
    /// failure to `returnTo?error=CODE` (a provider's refusal as
    /// `error=provider_error&provider_error=ITS_CODE`, never the provider's text). A callback
    /// without `state`, or with a state no flow of this browser has, goes to
    /// `/?error=state_mismatch` and leaves every flow in progress untouched. 503 with
    /// `Retry-After` when the account store cannot answer.
    package func callback(_ request: ServerRequest, provider name: String, form: [UInt8]?) async -> ServerResponse {
        await respond { try await finishSignIn(request, provider: name, form: form) }
    }

    private func finishSignIn(_ request: ServerRequest, provider name: String, form: [UInt8]?) async throws -> ServerResponse {
        let entry = try provider(named: name)
        let provider = entry.provider
        let path = configuration.authPath + "/" + entry.name
        // The flow is found by the callback's `state`. Without a state, or with one no flow of
        // this browser has, the callback is refused and every flow in progress is left as it
        // is: a forged callback (an `error=…` link without state) cannot end a real sign-in.
        let callback: AuthorizationResponse
        let pending: PendingAuthorization
        let cookieName: String
        do throws(FederateError) {
            if let form {
                guard form.count <= Self.maximumBodyBytes else { throw FederateError(.invalidCallback, "the callback's form is too large") }
                callback = try AuthorizationResponse(formBody: form)
            } else {
                callback = try AuthorizationResponse(query: request.query ?? "")
            }
            guard let state = callback.parameters["state"], !state.isEmpty else {
                throw FederateError(.stateMismatch, "the callback has no state")
            }
            cookieName = SessionCookies.pendingName(state: state)
            guard let sealed = request.cookie(cookieName) else {
                throw FederateError(.stateMismatch, "no sign-in in progress in this browser has this state")
            }
            pending = try configuration.sealer.open(sealed, now: configuration.accounts.clock.now)
            guard pending.providerID.exactlyEquals(provider.providerID) else {
                throw FederateError(.invalidPendingAuthorization, "the sign-in in progress is for another provider")
            }
        } catch {
            logger.notice("callback refused", metadata: ["provider": "\(entry.name)", "error": "\(error.code)"])
            return callbackFailure(error, returnTo: configuration.defaultReturnTo, clearing: nil)
        }
        let clear = SessionCookies.deletingPending(
            name: cookieName, path: path, secure: configuration.secureCookies, formPost: pending.responseMode == .formPost)
        let returnTo = pending.returnTo ?? configuration.defaultReturnTo
        // A merge in progress in this browser goes with it to the session this flow issues.
        let mergeTicket = request.cookie(SessionCookies.mergeTicketName(secure: configuration.secureCookies))
        let completion: SignInCompletion
        do {
            // The session that started a link or a reauthentication, verified once; for a
            // sign-in, only to carry a merge ticket.
            let session =
                pending.intent == .signIn
                ? (mergeTicket == nil ? nil : try? await currentSession(request)) : try await currentSession(request)
            completion = try await configuration.accounts.completeSignIn(
                with: provider, callback: callback, pending: pending, session: session, mergeTicket: mergeTicket)
        } catch let error as FederateError {
            logger.notice("sign-in failed", metadata: ["provider": "\(entry.name)", "error": "\(error.code)"])
            var response = callbackFailure(error, returnTo: returnTo, clearing: clear)
            // A link refused because the identity is another account's: the merge ticket goes
            // back to this browser only, in an HttpOnly cookie, for POST /me/merge.
            if let ticket = error.accountContext?.mergeTicket { response.setCookie(mergeTicketCookie(ticket)) }
            return response
        } catch let error as FederateHTTPError {
            logger.notice("sign-in failed", metadata: ["provider": "\(entry.name)", "error": "\(error.error.code)"])
            return callbackFailure(error.error, returnTo: returnTo, clearing: clear)
        }
        var response = ServerResponse.redirect(.seeOther, to: returnTo)
        response.setCookie(clear)
        if let result = completion.result, let token = result.sessionToken, let session = result.session {
            let maxAge = Int(configuration.accounts.configuration.sessionLifetime.wholeSeconds)
            response.setCookie(SessionCookies.session(token, maxAge: maxAge, secure: configuration.secureCookies))
            response.setCookie(logoutHintCookie(for: session, credential: result.credential, entry: entry, maxAge: maxAge))
            if let moved = completion.mergeTicket { response.setCookie(mergeTicketCookie(moved)) }
        }
        return response
    }

    /// The HttpOnly cookie that keeps a merge ticket in this browser for `POST /me/merge`, as long as the ticket lives.
    private func mergeTicketCookie(_ ticket: String) -> SetCookie {
        SessionCookies.mergeTicket(
            ticket, maxAge: Int(configuration.accounts.configuration.mergeTicketLifetime.wholeSeconds),
            secure: configuration.secureCookies)
    }

    /// The sealed ID token RP-initiated logout will send as `id_token_hint`, bound to the new
    /// session; a deleting cookie when there is none to keep (no ID token, a provider without
    /// the logout capability, or a token too large for a cookie).
    private func logoutHintCookie(
        for session: AccountSession, credential: Credential, entry: ProviderRegistry.Entry, maxAge: Int
    ) -> SetCookie {
        let path = configuration.authPath + "/signout"
        if entry.capabilities.logout != nil, let idToken = credential.rawIDToken,
            let sealed = try? configuration.sealer.seal(
                ["sid": .string(session.sessionID), "pid": .string(credential.providerID), "h": .string(idToken)], purpose: "logout1"),
            sealed.utf8.count <= SessionCookies.maximumCookieValueBytes
        {
            return SessionCookies.signOutCookie(
                name: SessionCookies.logoutHintName, value: sealed, path: path, maxAge: maxAge, secure: configuration.secureCookies)
        }
        return SessionCookies.signOutCookie(
            name: SessionCookies.logoutHintName, value: "", path: path, maxAge: 0, secure: configuration.secureCookies)
    }

    /// A failed sign-in callback: the browser goes back to the app's page with the error's code,
    /// `returnTo?error=CODE` (for an error the provider answered,
    /// `error=provider_error&provider_error=ITS_CODE`), and the flow's cookie is cleared. No
    /// message goes along: the provider's free text never reaches the browser. When the account
    /// store could not answer, 503 with `Retry-After` and the JSON error instead (``StoreOutage``):
    /// the sign-in did not fail, the server could not finish it; start it again later.
    private func callbackFailure(_ error: FederateError, returnTo: String, clearing: SetCookie?) -> ServerResponse {
        var response: ServerResponse
        if StoreOutage.isStoreFailure(error) {
            response = ErrorResponse.json(.serviceUnavailable, error)
        } else {
            let parameters: [(String, String)]
            if let providerError = error.providerError {
                parameters = [("error", FederateError.Code.providerError.rawValue), ("provider_error", providerError.code)]
            } else {
                parameters = [("error", error.code.rawValue)]
            }
            let separator = returnTo.contains("?") ? "&" : "?"
            response = .redirect(.seeOther, to: returnTo + separator + FormURLEncoding.encode(parameters))
        }
        if let clearing { response.setCookie(clearing) }
        return response
    }
}
