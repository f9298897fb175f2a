public import Federate
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
    public func receiveEvents(_ route: ProviderEventRoute, provider name: String, body: [UInt8]) async -> ServerResponse {
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
            logger.notice("provider event refused", metadata: ["provider": "\(name)", "route": "\(route.rawValue)", "error": "\(error.code)"])
            // Back-Channel Logout 1.0 §2.8's error body; 503 with `Retry-After` when the store failed.
            let status = StoreOutage.status(for: error, otherwise: .badRequest)
            return .json(
                ["error": .string(error.code.rawValue), "error_description": .string(error.message)], status: status,
                headers: status == .serviceUnavailable ? StoreOutage.fields : [:])
        }
    }

    /// `POST {auth}/signout`: signs `session` out; `{"signed_out": true}`, plus `end_session_url`
    /// when the session's provider can end its own session (`ProviderCapabilities/logout`,
    /// RP-Initiated Logout 1.0), and the session cookie deleted.
    public func signOut(_ session: AccountSession?) async -> ServerResponse {
        await respond {
            var body: [String: JSONValue] = ["signed_out": true]
            if let session {
                try await configuration.accounts.signOut(session)
                if let providerID = session.provider?.providerID,
                    let source = configuration.providers.entry(providerID: providerID)?.capabilities.logout,
                    let url = try? await source.endSessionURL(postLogoutRedirectURI: nil)
                {
                    body["end_session_url"] = .string(url)
                }
            }
            var response = ServerResponse.json(.object(body))
            response.setCookie(SessionCookies.deletingSession(secure: configuration.secureCookies))
            return response
        }
    }

    /// `GET /me`: `{uid, email, display_name, email_verified, providers: [{provider_id, email, route}],
    /// auth_time, session_age_seconds, recent_login, csrf_token}`, plus `acr` and `amr` when
    /// the sign-in's provider asserted them; sets the CSRF cookie when the request had none.
    public func me(_ request: ServerRequest, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            let user = try await configuration.accounts.user(uid: session.uid)
            let sentCSRF = request.cookie(SessionCookies.csrfName(secure: configuration.secureCookies))
            let csrf = sentCSRF ?? SecureRandom.token(byteCount: 32)
            let now = configuration.accounts.clock.now
            var body: [String: JSONValue] = [
                "uid": .string(user.uid), "email_verified": .bool(user.emailVerified),
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
            var response = ServerResponse.json(.object(body))
            if sentCSRF == nil { response.setCookie(SessionCookies.csrf(csrf, secure: configuration.secureCookies)) }
            return response
        }
    }

    /// `DELETE /me/providers/{providerID}`: unlinks (the account layer needs a recent sign-in
    /// and never unlinks the last provider); `{uid, providers}`.
    public func unlink(providerID: String?, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            guard let providerID else { throw FederateHTTPError(.badRequest, code: .invalidRequest, message: "name the provider to unlink") }
            let user = try await configuration.accounts.unlink(session, providerID: providerID)
            return .json(["uid": .string(user.uid), "providers": .array(user.providerIDs.map(JSONValue.string))])
        }
    }

    /// `DELETE /me`: deletes the account (the account layer needs a recent sign-in) and revokes
    /// its provider tokens at each provider; `{"deleted": true, "revoked": N}`, the session
    /// cookie deleted.
    public func deleteAccount(_ session: AccountSession?) async -> ServerResponse {
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
