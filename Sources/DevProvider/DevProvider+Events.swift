public import Federate
public import Foundation

extension DevProvider {
    /// The issuer of the Google flavour's RISC security event tokens: the issuer with a
    /// trailing slash, as Google's `https://accounts.google.com/`.
    package var riscIssuer: String { issuer + "/" }

    /// Google flavour: signs a RISC security event token (RS256, with `kid`) about `subject`
    /// and POSTs it to `receiverURL` as `application/secevent+jwt`, as Google's Cross-Account
    /// Protection does. Returns the receiver's HTTP status and the token's `jti`.
    ///
    /// - Parameters:
    ///   - eventType: the full event-type URI, e.g.
    ///     `https://schemas.openid.net/secevent/risc/event-type/sessions-revoked`.
    ///   - subject: the Google user's `sub`.
    ///   - audience: the receiving client ID (the token's `aud`).
    ///   - reason: the `reason` member (for `account-disabled`: `hijacking` or `bulk-account`).
    ///   - tokenID: the `jti`; a fresh random one by default (pass the same twice to replay).
    ///   - receiverURL: the relying party's RISC endpoint.
    ///   - http: the transport that POSTs it.
    public func sendSecurityEvent(
        _ eventType: String, subject: String, audience: String, reason: String? = nil, tokenID: String? = nil,
        to receiverURL: String, http: any HTTPClient = AsyncHTTPClientTransport.shared
    ) async throws -> (status: Int, tokenID: String) {
        var event: [String: JSONValue] = ["subject": ["subject_type": "iss-sub", "iss": .string(riscIssuer), "sub": .string(subject)]]
        if let reason { event["reason"] = .string(reason) }
        let jti = tokenID ?? DevRandom.token()
        let claims: [String: JSONValue] = [
            "iss": .string(riscIssuer), "aud": .string(audience),
            "iat": .integer(SafeNumber.clampedInt64(configuration.clock.now.timeIntervalSince1970)),
            "jti": .string(jti), "events": .object([eventType: .object(event)]),
        ]
        let token = try state.keys.withLock { $0.current.rsa }.sign(claims: claims, algorithm: .rs256, header: ["typ": "secevent+jwt"])
        let response = try await http.send(
            HTTPRequest(
                method: "POST", url: receiverURL, headers: [("Content-Type", "application/secevent+jwt"), ("Accept", "application/json")],
                body: Array(token.utf8)))
        return (response.status, jti)
    }

    /// Apple flavour: signs a server-to-server notification for `clientID` and POSTs
    /// `{"payload": JWT}` to `receiverURL`, shaped as Apple's: `iss`, `aud`, `iat`, `jti` and
    /// the `events` claim as a JSON string (no top-level `sub` or `exp`). Returns the receiver's HTTP status and the notification's `jti`.
    ///
    /// - Parameters:
    ///   - type: `email-disabled`, `email-enabled`, `consent-revoked` or `account-delete`.
    ///   - subject: the Apple user's `sub`.
    ///   - clientID: the receiving services ID (the token's `aud`).
    ///   - email: the `email` member, for the email events.
    ///   - isPrivateEmail: the `is_private_email` member.
    ///   - tokenID: the `jti`; a fresh random one by default (pass the same twice to repeat).
    ///   - receiverURL: the relying party's notification endpoint.
    ///   - http: the transport that POSTs it.
    public func sendAppleNotification(
        _ type: String, subject: String, clientID: String, email: String? = nil, isPrivateEmail: Bool? = nil, tokenID: String? = nil,
        to receiverURL: String, http: any HTTPClient = AsyncHTTPClientTransport.shared
    ) async throws -> (status: Int, tokenID: String) {
        let now = configuration.clock.now
        var events: [String: JSONValue] = [
            "type": .string(type), "sub": .string(subject),
            "event_time": .integer(SafeNumber.clampedInt64(now.timeIntervalSince1970 * 1000)),
        ]
        if let email { events["email"] = .string(email) }
        if let isPrivateEmail { events["is_private_email"] = .string(isPrivateEmail ? "true" : "false") }
        let jti = tokenID ?? DevRandom.token()
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(clientID), "iat": .integer(SafeNumber.clampedInt64(now.timeIntervalSince1970)),
            "jti": .string(jti),
            "events": .string(String(decoding: JSONSerializer.bytes(.object(events)), as: UTF8.self)),
        ]
        let token = try state.keys.withLock { $0.current.rsa }.sign(claims: claims, algorithm: .rs256)
        let response = try await http.send(
            HTTPRequest(
                method: "POST", url: receiverURL, headers: [("Content-Type", "application/json")],
                body: JSONSerializer.bytes(["payload": .string(token)])))
        return (response.status, jti)
    }

    /// Firebase flavour: a securetoken-style ID token for `user`, as the Firebase client SDK
    /// would obtain after a sign-in (`iss` the issuer, `aud` the project ID, `auth_time`,
    /// `firebase.sign_in_provider`), signed by a key in the certificate map; with `tenant`, of
    /// that Identity Platform tenant (`firebase.tenant`). `authTime` defaults to now (the
    /// configuration's clock).
    public func firebaseIDToken(for user: DevUser, tenant: String? = nil, authTime: Date? = nil) throws -> String {
        if let tenant { return try firebaseIDToken(for: user, ofTenant: tenant, authTime: authTime) }
        let client = DevClient(id: configuration.projectID, redirectURIs: [])
        var firebase = configuration
        firebase.flavor = .firebase
        return try DevTokenMinter(issuer: issuer, flavor: .firebase, configuration: firebase, state: state).idToken(
            for: user, client: client, nonce: nil, accessToken: nil, authTime: authTime ?? configuration.clock.now, scopes: ["openid"])
    }
}

extension DevProvider {
    /// The `client_secret` a relying party sends for `client`: its shared secret, or in the
    /// Apple flavour a client-secret JWT signed with ``DevProviderConfiguration/appleClientKey``
    /// (valid for an hour); `nil` for a client without either.
    public func clientSecret(for client: DevClient) throws -> String? {
        if let team = client.teamID, let key = configuration.appleClientKey, key.teamID == team {
            return try key.clientSecret(clientID: client.id, audience: issuer, now: configuration.clock.now)
        }
        return client.secret
    }
}

extension DevProvider {
    /// An authorization code as a native SDK receives it (Sign in with Apple on iOS): for
    /// `clientID` (the app's bundle ID), without redirect URI or PKCE, single use, 60 seconds.
    /// `nonce` is what the app put in its request (Apple's SDK sends its SHA-256).
    func nativeAuthorizationCode(
        clientID: String, subject: String, nonce: String? = nil, scopes: [String] = ["openid"]
    ) throws -> String {
        guard configuration.clients.contains(where: { $0.id == clientID }) else {
            throw FederateError(.invalidConfiguration, "no client '\(clientID)' is registered")
        }
        guard let user = configuration.users.first(where: { $0.subject == subject }) else {
            throw FederateError(.invalidConfiguration, "no test user '\(subject)'")
        }
        let code = DevRandom.token()
        let now = configuration.clock.now
        state.codes.withLock {
            $0[ExactString(code)] = DevCodeGrant(
                clientID: clientID, redirectURI: nil, user: user, nonce: nonce, codeChallenge: nil, scopes: scopes, authTime: now,
                expiresAt: now.addingTimeInterval(60))
        }
        return code
    }
}
