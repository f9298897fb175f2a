import Federate
import Foundation
import HTTPTypes

/// Passkey routes (registered when the account service has a passkey configuration;
/// Docs/Passkeys.md). Each ceremony is two POSTs: the options (the challenge sealed in this
/// browser's `federate_passkey` cookie) and the browser's response. Every one is same-site
/// only: the `/me` routes through the session's CSRF check, the sign-in routes by `Origin`
/// (or `Referer`) and the per-client limit of anonymous routes.
extension FederateEndpoints {
    /// `POST {auth}/passkey/options`: options to sign in with any passkey of this site
    /// (`PublicKeyCredentialRequestOptionsJSON`), for `navigator.credentials.get`, with or
    /// without conditional mediation.
    func passkeySignInOptions(_ request: ServerRequest) async -> ServerResponse {
        await respond {
            try checkAnonymous(request, limiter: passkeyLimiter, what: "passkey sign-ins")
            let options = try configuration.accounts.passkeySignInOptions()
            return try ceremony(options, session: nil)
        }
    }

    /// `POST {auth}/passkey`: the browser's `AuthenticationResponseJSON` for the options of
    /// ``passkeySignInOptions(_:)``: signs the passkey's account in and sets the session cookie;
    /// `{"uid": UID}`. 404 `passkey_not_found` for a credential no account has, 400 `webauthn_*`
    /// for a ceremony that fails its checks.
    func passkeySignIn(_ request: ServerRequest, body: [UInt8]) async -> ServerResponse {
        await respond {
            try checkAnonymous(request, limiter: passkeyLimiter, what: "passkey sign-ins")
            let challenge = try openChallenge(request, ceremony: .authentication, session: nil)
            let signedIn = try await configuration.accounts.signIn(
                withPasskey: try WebAuthnAuthenticationResponse(json: body), challenge: challenge)
            return signedInResponse(signedIn)
        }
    }

    /// `POST /me/passkeys/options`: options to register a passkey for the session's user
    /// (`PublicKeyCredentialCreationOptionsJSON`), for `navigator.credentials.create`; needs a
    /// recent sign-in (403 `requires_recent_login`) unless the user is a guest.
    func passkeyRegistrationOptions(session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            return try ceremony(try await configuration.accounts.passkeyRegistrationOptions(session), session: session)
        }
    }

    /// `POST /me/passkeys[?name=LABEL]`: the browser's `RegistrationResponseJSON` for the
    /// options of ``passkeyRegistrationOptions(session:)``: links the passkey; 201 with the
    /// passkey as `GET /me/passkeys` lists it. 409 `credential_already_in_use` when the
    /// credential is registered already.
    func addPasskey(_ request: ServerRequest, body: [UInt8], session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            let challenge = try openChallenge(request, ceremony: .registration, session: session)
            let passkey = try await configuration.accounts.addPasskey(
                session, response: try WebAuthnRegistrationResponse(json: body), challenge: challenge,
                name: request.queryParameters()["name"])
            var response = ServerResponse.json(Self.json(passkey), status: .created)
            response.setCookie(PasskeyChallengeCookie.deleting(secure: configuration.secureCookies))
            return response
        }
    }

    /// `GET /me/passkeys`: `{"passkeys": [{"id", "name", "algorithm", "backed_up",
    /// "transports", "created_at", "last_used_at"}]}`, oldest first; `id` is the credential ID
    /// in base64url, as `DELETE /me/passkeys/:id` takes it.
    func listPasskeys(session: AccountSession?) async -> ServerResponse {
        await respond {
            let passkeys = try await configuration.accounts.passkeys(try requireSession(session))
            return .json(["passkeys": .array(passkeys.map(Self.json))])
        }
    }

    /// `DELETE /me/passkeys/:id`: removes one of the user's passkeys; needs a recent sign-in
    /// (403 `requires_recent_login`); 404 `passkey_not_found`; 400 `last_provider` when it is
    /// the user's only way in. 204.
    func removePasskey(id: String?, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            guard let id, let credentialID = Base64URL.decode(id), !credentialID.isEmpty else {
                throw FederateHTTPError(.notFound, code: .passkeyNotFound, message: "no passkey has this ID")
            }
            try await configuration.accounts.removePasskey(session, credentialID: credentialID)
            return ServerResponse(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// `POST /me/reauthenticate/passkey/options`: options to reauthenticate with one of the
    /// user's passkeys, user verification required; 404 `passkey_not_found` when there is none.
    func passkeyReauthenticationOptions(session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            return try ceremony(try await configuration.accounts.passkeyReauthenticationOptions(session), session: session)
        }
    }

    /// `POST /me/reauthenticate/passkey`: the browser's `AuthenticationResponseJSON` for the
    /// options of ``passkeyReauthenticationOptions(session:)``: a fresh sign-in, rotating the
    /// session cookie (the old session signed out, a merge ticket in this browser carried to the
    /// new one); `{"uid": UID}`. 403 `user_mismatch` for another account's passkey.
    func passkeyReauthenticate(_ request: ServerRequest, body: [UInt8], session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            let challenge = try openChallenge(request, ceremony: .authentication, session: session)
            let accounts = configuration.accounts, secure = configuration.secureCookies
            let signedIn = try await accounts.reauthenticate(
                session, withPasskey: try WebAuthnAuthenticationResponse(json: body), challenge: challenge)
            var response = signedInResponse(signedIn)
            if let ticket = request.cookie(SessionCookies.mergeTicketName(secure: secure)),
                let moved = await accounts.moveMergeTicket(ticket, from: session, to: signedIn.session)
            {
                response.setCookie(
                    SessionCookies.mergeTicket(moved, maxAge: Int(accounts.configuration.mergeTicketLifetime.wholeSeconds), secure: secure))
            }
            return response
        }
    }

    // MARK: Internals

    /// The options as JSON, and the cookie keeping their challenge.
    private func ceremony(_ options: WebAuthnOptions, session: AccountSession?) throws(FederateError) -> ServerResponse {
        var response = ServerResponse.json(options.json)
        response.setCookie(
            try PasskeyChallengeCookie(challenge: options.challenge, sessionID: session?.sessionID).cookie(
                sealer: configuration.sealer, now: configuration.accounts.clock.now, secure: configuration.secureCookies))
        return response
    }

    private func openChallenge(
        _ request: ServerRequest, ceremony: WebAuthnCeremony, session: AccountSession?
    ) throws(FederateError) -> WebAuthnChallenge {
        try PasskeyChallengeCookie.open(
            request, sealer: configuration.sealer, secure: configuration.secureCookies, ceremony: ceremony, session: session)
    }

    /// `{"uid": UID}`, the new session's cookie, the ceremony's cookie gone.
    private func signedInResponse(_ signedIn: PasskeySignIn) -> ServerResponse {
        var response = ServerResponse.json(["uid": .string(signedIn.user.uid)])
        let lifetime = max(0, Int(signedIn.session.expiresAt.timeIntervalSince(configuration.accounts.clock.now)))
        response.setCookie(SessionCookies.session(signedIn.sessionToken, maxAge: lifetime, secure: configuration.secureCookies))
        response.setCookie(PasskeyChallengeCookie.deleting(secure: configuration.secureCookies))
        return response
    }

    /// A passkey as the routes show it: never its public key.
    static func json(_ passkey: Passkey) -> JSONValue {
        [
            "id": .string(Base64URL.encode(passkey.credentialID)), "name": passkey.name.map(JSONValue.string) ?? .null,
            "algorithm": .integer(Int64(passkey.algorithm)), "backed_up": .bool(passkey.backupState),
            "transports": .array(passkey.transports.map(JSONValue.string)),
            "created_at": .integer(Int64(passkey.createdAt.timeIntervalSince1970.rounded(.down))),
            "last_used_at": passkey.lastUsedAt.map { .integer(Int64($0.timeIntervalSince1970.rounded(.down))) } ?? .null,
        ]
    }
}
