import Federate
import Foundation

/// Signs the dev provider's ID tokens in its flavour's shape, applying a client's faults.
struct DevTokenMinter {
    let issuer: String
    let flavor: DevFlavor
    let configuration: DevProviderConfiguration
    let state: DevProviderState

    func idToken(
        for user: DevUser, client: DevClient, nonce: String?, accessToken: String?, authTime: Date, scopes: [String]
    ) throws -> String {
        let now = state.clock.now
        let faults = client.faults
        if faults.contains(.rotateKeys) { try state.rotateKeys(overlap: .seconds(3600)) }
        let issuedAt = SafeNumber.clampedInt64(now.timeIntervalSince1970) + (faults.contains(.futureToken) ? 3600 : 0)
        let expiresAt =
            faults.contains(.expiredToken)
            ? SafeNumber.clampedInt64(now.timeIntervalSince1970) - 3600 : issuedAt &+ configuration.tokenLifetime.wholeSeconds
        var claims: [String: JSONValue] = [
            "iss": .string(faults.contains(.wrongIssuer) ? issuer + "/other" : tokenIssuer(for: client)),
            "sub": .string(user.subject),
            "aud": .string(faults.contains(.wrongAudience) ? client.id + "-other" : client.id),
            "iat": .integer(issuedAt), "exp": .integer(expiresAt),
            "auth_time": .integer(SafeNumber.clampedInt64(authTime.timeIntervalSince1970)),
        ]
        if let nonce { claims["nonce"] = .string(faults.contains(.wrongNonce) ? nonce + "-other" : nonce) }
        if let accessToken { claims["at_hash"] = .string(TokenHash.compute(accessToken, algorithm: .rs256)) }
        addFlavorClaims(to: &claims, user: user, client: client, scopes: scopes)
        if let login = user.login {
            claims["acr"] = .string(login.acr)
            claims["amr"] = .array(login.method.amr.map(JSONValue.string))
        }
        if flavor == .generic, let sessionID = state.ssoSessionIDs.withLock({ $0[user.subject] }) {
            claims["sid"] = .string(sessionID)  // Back-Channel Logout 1.0 §2.1: the provider session
        }
        if client.minimalIDTokens {
            for name in ["email", "email_verified", "name", "given_name", "family_name", "picture"] { claims.removeValue(forKey: name) }
        }
        if faults.contains(.missingSubject) { claims.removeValue(forKey: "sub") }
        if faults.contains(.missingExpiry) { claims.removeValue(forKey: "exp") }

        let key = state.keys.withLock { $0.current.rsa }
        var header: [String: JSONValue] = ["typ": "JWT"]
        if faults.contains(.unknownKeyID) { header["kid"] = "dev-unpublished" }
        var token = try key.sign(claims: claims, algorithm: .rs256, header: header)
        if faults.contains(.badSignature) { token = Self.corruptSignature(token) }
        return token
    }

    /// The `iss` a client's tokens carry: Google's legacy spelling drops the scheme.
    func tokenIssuer(for client: DevClient) -> String {
        guard flavor == .google, client.legacyIssuer, let scheme = issuer.range(of: "://") else { return issuer }
        return String(issuer[scheme.upperBound...])
    }

    private func addFlavorClaims(to claims: inout [String: JSONValue], user: DevUser, client: DevClient, scopes: [String]) {
        let email = scopes.contains("email")
        switch flavor {
        case .generic:
            if email {
                claims["email"] = .string(user.email)
                claims["email_verified"] = .bool(user.emailVerified)
            }
            if scopes.contains("profile") { claims["name"] = .string(user.name) }
        case .google:
            claims["azp"] = .string(client.id)
            if let domain = user.hostedDomain { claims["hd"] = .string(domain) }
            if email {
                claims["email"] = .string(user.email)
                claims["email_verified"] = .bool(user.emailVerified)
            }
            if scopes.contains("profile") {
                claims["name"] = .string(user.name)
                claims["given_name"] = .string(user.givenName)
                claims["family_name"] = .string(user.familyName)
                claims["picture"] = .string(issuer + "/photos/" + user.subject)
            }
        case .apple:
            // Apple writes booleans as strings and says it supports nonces.
            claims["nonce_supported"] = .bool(true)
            if email {
                claims["email"] = .string(user.email)
                claims["email_verified"] = .string(user.emailVerified ? "true" : "false")
                claims["is_private_email"] = .string(user.isPrivateEmail ? "true" : "false")
            }
        case .microsoft:
            addMicrosoftClaims(to: &claims, user: user, client: client, scopes: scopes)
        case .github:
            break  // OAuth 2.0 only: it mints no ID token
        case .firebase:
            claims["user_id"] = .string(user.subject)
            claims["email"] = .string(user.email)
            claims["email_verified"] = .bool(user.emailVerified)
            claims["name"] = .string(user.name)
            claims["firebase"] = [
                "sign_in_provider": .string(configuration.firebaseSignInProvider),
                "identities": .object([
                    "email": [.string(user.email)],
                    configuration.firebaseSignInProvider: [.string(user.subject)],
                ]),
            ]
        }
    }

    /// Flips bits in the middle of the signature, keeping it canonical base64url.
    static func corruptSignature(_ token: String) -> String {
        guard let dot = token.lastIndex(of: ".") else { return token }
        var signature = Array(token[token.index(after: dot)...])
        let middle = signature.count / 2
        signature[middle] = signature[middle] == "A" ? "B" : "A"
        return String(token[...dot]) + String(signature)
    }
}
