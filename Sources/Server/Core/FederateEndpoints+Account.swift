package import Federate
import HTTPTypes

extension FederateEndpoints {
    /// `POST {auth}/{provider}/{route}`: verifies a provider's delivery, refuses a replayed one
    /// through the store (every instance sees every delivery ID), and applies its events to the
    /// accounts. Answers as each provider expects: 200 with `Cache-Control: no-store` for
    /// back-channel logout (Back-Channel Logout 1.0 §2.8), 200 for Apple, 202 for RISC; 400 with
    /// `{"error", "error_description"}` otherwise, 404 for a provider without that route, and
    /// 503 with `Retry-After` when the store fails, so the provider retries.
    ///
    /// A logout token is single use: its ID is consumed before its events are applied, and a
    /// replay is refused. Apple's and RISC's deliveries are idempotent and retried by their
    /// provider until acknowledged: their ID is consumed only once their events are applied,
    /// so a store failure midway leaves the retry to do the work; a delivery already applied
    /// is acknowledged again, without effect.
    package func receiveEvents(_ route: ProviderEventRoute, provider name: String, body: [UInt8]) async -> ServerResponse {
        guard let source = configuration.providers.entry(named: name)?.capabilities.events, source.eventRoutes.contains(route) else {
            return ErrorResponse.json(.notFound, code: .unknownProvider, message: "no provider by this name receives \(route.rawValue)")
        }
        let accepted: HTTPTypes.HTTPResponse.Status = route == .risc ? .accepted : .ok
        do throws(FederateError) {
            guard body.count <= Self.maximumBodyBytes else { throw FederateError(.invalidRequest, "the delivery is too large") }
            let batch = try await source.receiveEvents(on: route, body: body)
            let store = configuration.accounts.store
            let now = configuration.accounts.clock.now
            let acknowledged = ServerResponse(status: accepted, headers: [.cacheControl: "no-store"])
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
            logger.notice(
                "provider event refused", metadata: ["provider": "\(name)", "route": "\(route.rawValue)", "error": "\(error.code)"])
            // Back-Channel Logout 1.0 §2.8's error body; 503 with `Retry-After` when the store failed.
            let status = StoreOutage.status(for: error, otherwise: .badRequest)
            return .json(
                ["error": .string(error.code.rawValue), "error_description": .string(error.message)], status: status,
                headers: status == .serviceUnavailable ? StoreOutage.fields : [:])
        }
    }

    /// `POST {auth}/signout`: signs `session` out here and deletes the session cookie. When the
    /// session's provider can end its own session (`ProviderCapabilities/logout` and an
    /// `end_session_endpoint`), the answer says where to send the browser next (RP-Initiated
    /// Logout 1.0): `end_session_url` with the session's ID token as `id_token_hint` (kept sealed
    /// in a cookie since the sign-in), `post_logout_redirect_uri` (`{origin}{auth}/signout/callback`),
    /// `client_id` and a fresh `state`, sealed into a cookie for the return.
    /// `{"signed_out": true, "provider_sign_out": Bool}`: `false` when sign-out stays local
    /// (Google, Apple, OAuth 2.0 providers: no endpoint), and then no `end_session_url`.
    package func signOut(_ request: ServerRequest, session: AccountSession?) async -> ServerResponse {
        await respond {
            var body: [String: JSONValue] = ["signed_out": true, "provider_sign_out": false]
            let path = configuration.authPath + "/signout", secure = configuration.secureCookies
            var stateCookie: SetCookie?
            if let session {
                try await configuration.accounts.signOut(session)
                if let provider = session.provider,
                    let source = configuration.providers.entry(providerID: provider.providerID)?.capabilities.logout
                {
                    let state = SecureRandom.token()
                    let logout = ProviderLogoutRequest(
                        idTokenHint: logoutHint(request, session: session), postLogoutRedirectURI: postLogoutRedirectURI, state: state)
                    do throws(FederateError) {
                        if let url = try await source.endSessionURL(logout),
                            let sealed = try? configuration.sealer.seal(
                                ["st": .string(state), "ea": .double(configuration.accounts.clock.now.timeIntervalSince1970 + 600)],
                                purpose: "signout1")
                        {
                            body["end_session_url"] = .string(url)
                            body["provider_sign_out"] = true
                            stateCookie = SessionCookies.signOutCookie(
                                name: SessionCookies.signOutStateName, value: sealed, path: path, maxAge: 600, secure: secure)
                        }
                    } catch {
                        // The provider's discovery is unreachable: signed out here, and said so.
                        logger.notice(
                            "the provider's sign-out URL could not be built",
                            metadata: ["provider": "\(provider.providerID)", "error": "\(error.code)"])
                    }
                }
            }
            var response = ServerResponse.json(.object(body))
            response.setCookie(SessionCookies.deletingSession(secure: secure))
            response.setCookie(
                SessionCookies.signOutCookie(name: SessionCookies.logoutHintName, value: "", path: path, maxAge: 0, secure: secure))
            // A merge in progress ends with the session it was issued to.
            response.setCookie(SessionCookies.mergeTicket("", maxAge: 0, secure: secure))
            if let stateCookie { response.setCookie(stateCookie) }
            return response
        }
    }

    /// `post_logout_redirect_uri`, `{origin}{auth}/signout/callback`: register it with each
    /// provider that has an `end_session_endpoint`.
    package var postLogoutRedirectURI: String { configuration.origin + configuration.authPath + "/signout/callback" }

    /// The session's ID token from the sealed logout-hint cookie, when it opens and was kept
    /// for this very session; `nil` otherwise.
    private func logoutHint(_ request: ServerRequest, session: AccountSession) -> String? {
        guard let sealed = request.cookie(SessionCookies.logoutHintName),
            let kept = try? configuration.sealer.open(sealed, purpose: "logout1"),
            case .string(let sid)? = kept["sid"], sid.exactlyEquals(session.sessionID),
            case .string(let providerID)? = kept["pid"], providerID.exactlyEquals(session.provider?.providerID ?? ""),
            case .string(let hint)? = kept["h"]
        else { return nil }
        return hint
    }

    /// `GET {auth}/signout/callback`: the provider sends the browser back after ending its
    /// session. The `state` must equal the one sealed in this browser's cookie (constant time),
    /// within ten minutes; then 303 to `defaultReturnTo` with `signed_out=provider` and the cookie
    /// cleared. Else 303 with `error=state_mismatch`, the cookie left as it is: a forged return
    /// cannot spoil the real one. The session here ended already.
    func signedOutAtProvider(_ request: ServerRequest) -> ServerResponse {
        let now = configuration.accounts.clock.now.timeIntervalSince1970
        var parameter = ("error", FederateError.Code.stateMismatch.rawValue)
        if let returned = request.queryParameters()["state"],
            let sealed = request.cookie(SessionCookies.signOutStateName),
            let kept = try? configuration.sealer.open(sealed, purpose: "signout1"),
            case .string(let state)? = kept["st"], let expiresAt = kept["ea"]?.doubleValue, now < expiresAt,
            ConstantTime.equals(returned, state)
        {
            parameter = ("signed_out", "provider")
        }
        let target = configuration.defaultReturnTo
        var response = ServerResponse.redirect(
            .seeOther, to: target + (target.contains("?") ? "&" : "?") + FormURLEncoding.encode([parameter]))
        if parameter.0 == "signed_out" {
            response.setCookie(
                SessionCookies.signOutCookie(
                    name: SessionCookies.signOutStateName, value: "", path: configuration.authPath + "/signout", maxAge: 0,
                    secure: configuration.secureCookies))
        }
        return response
    }

    /// `GET /me`: `{uid, email, display_name, email_verified, guest, providers: [{provider_id, email, route}],
    /// auth_time, session_age_seconds, recent_login, csrf_token}`, plus `acr` and `amr` when
    /// the sign-in's provider asserted them; sets the CSRF cookie when the request had none.
    package func me(_ request: ServerRequest, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            let user = try await configuration.accounts.user(uid: session.uid)
            let sentCSRF = request.cookie(SessionCookies.csrfName(secure: configuration.secureCookies))
            let csrf = sentCSRF ?? SecureRandom.token(byteCount: 32)
            let now = configuration.accounts.clock.now
            var body: [String: JSONValue] = [
                "uid": .string(user.uid), "email_verified": .bool(user.emailVerified), "guest": .bool(user.isGuest),
                "providers": .array(
                    user.identities.map { identity in
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
            var response = ServerResponse.json(.object(body))
            if sentCSRF == nil { response.setCookie(SessionCookies.csrf(csrf, secure: configuration.secureCookies)) }
            return response
        }
    }

    /// `DELETE /me/providers/{providerID}`: unlinks (the account layer needs a recent sign-in
    /// and never unlinks the last provider); `{uid, providers}`.
    package func unlink(providerID: String?, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            guard let providerID else {
                throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "name the provider to unlink")
            }
            let user = try await configuration.accounts.unlink(session, providerID: providerID)
            return .json(["uid": .string(user.uid), "providers": .array(user.providerIDs.map(JSONValue.string))])
        }
    }

    /// `DELETE /me`: deletes the account (the account layer needs a recent sign-in) and revokes
    /// its provider tokens at each provider; `{"deleted": true, "revoked": N}`, the session
    /// cookie deleted.
    func deleteAccount(_ session: AccountSession?) async -> ServerResponse {
        await respond {
            let revocable = try await configuration.accounts.delete(try requireSession(session))
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
            var response = ServerResponse.json(["deleted": true, "revoked": .integer(Int64(revoked))])
            response.setCookie(SessionCookies.deletingSession(secure: configuration.secureCookies))
            return response
        }
    }
}
