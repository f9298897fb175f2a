import Federate
import Foundation

extension DevRoutes {
    /// Authenticates the client of a token or revocation request: Basic (form-encoded
    /// credentials), `client_secret_post`, `private_key_jwt`, or `none`, each only when the
    /// client accepts that method. In the Apple flavour the secret must be a valid ES256
    /// client-secret JWT. Returns `nil` when authentication fails.
    func authenticate(_ parameters: [String: String], authorization: String?, endpoint: String) -> DevClient? {
        if let authorization {
            guard authorization.hasPrefix("Basic "), let (id, secret) = Self.basicCredentials(authorization),
                let client = client(id), client.acceptedAuthMethods.contains(.clientSecretBasic),
                parameters["client_assertion"] == nil, verifySecret(secret, of: client)
            else { return nil }
            return client
        }
        if let assertion = parameters["client_assertion"] {
            guard parameters["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                let client = verifyAssertion(assertion, claimedID: parameters["client_id"], endpoint: endpoint),
                client.acceptedAuthMethods.contains(.privateKeyJWT)
            else { return nil }
            return client
        }
        guard let client = client(parameters["client_id"]) else { return nil }
        if let secret = parameters["client_secret"] {
            guard client.acceptedAuthMethods.contains(.clientSecretPost), verifySecret(secret, of: client) else { return nil }
            return client
        }
        return client.acceptedAuthMethods.contains(.none) ? client : nil
    }

    private static func basicCredentials(_ header: String) -> (String, String)? {
        guard let data = Data(base64Encoded: String(header.dropFirst(6))) else { return nil }
        let decoded = String(decoding: data, as: UTF8.self)
        guard let colon = decoded.firstIndex(of: ":"),
            let id = (try? FormURLEncoding.decode("v=" + decoded[..<colon]))?["v"],
            let secret = (try? FormURLEncoding.decode("v=" + decoded[decoded.index(after: colon)...]))?["v"]
        else { return nil }
        return (id, secret)
    }

    /// A shared secret, or in the Apple flavour (a client with a team) a client-secret JWT.
    private func verifySecret(_ secret: String, of client: DevClient) -> Bool {
        if let team = client.teamID {
            return verifyAppleClientSecret(secret, client: client, team: team)
        }
        guard let expected = client.secret else { return false }
        return ConstantTime.equals(secret, expected)
    }

    /// Apple's rules: ES256 by the registered key, `iss` the team, `sub` the client ID, `aud`
    /// the issuer, not expired, and at most 15,777,000 s between `iat` and `exp`.
    private func verifyAppleClientSecret(_ secret: String, client: DevClient, team: String) -> Bool {
        guard let keys = client.publicKeys, let claims = verifiedClaims(secret, keys: keys, algorithms: [.es256]),
            claims["iss"]?.stringValue == team, claims["sub"]?.stringValue == client.id,
            Self.audience(claims["aud"], contains: issuer),
            let issuedAt = claims["iat"]?.doubleValue, let expiresAt = claims["exp"]?.doubleValue
        else { return false }
        let now = Date().timeIntervalSince1970
        return expiresAt > now && issuedAt <= now + 60 && expiresAt - issuedAt <= 15_777_000
    }

    /// RFC 7523 client assertions: signed by a registered key, `iss` = `sub` = the client,
    /// `aud` the token endpoint or the issuer, unexpired, at most 5 minutes long, `jti` used once.
    private func verifyAssertion(_ assertion: String, claimedID: String?, endpoint: String) -> DevClient? {
        guard let jws = try? CompactJWS(parsing: assertion),
            let payload = try? JSONParser().parseObject(jws.payload),
            let id = payload["iss"]?.stringValue, payload["sub"]?.stringValue == id, claimedID == nil || claimedID == id,
            let client = client(id), client.teamID == nil, let keys = client.publicKeys,
            let claims = verifiedClaims(assertion, keys: keys, algorithms: [.rs256, .es256, .ps256, .edDSA]),
            Self.audience(claims["aud"], contains: endpoint) || Self.audience(claims["aud"], contains: issuer),
            let expiresAt = claims["exp"]?.doubleValue, let jti = claims["jti"]?.stringValue, !jti.isEmpty
        else { return nil }
        let now = Date().timeIntervalSince1970
        guard expiresAt > now, expiresAt - now <= 300 else { return nil }
        let fresh = state.usedAssertionIDs.withLock { used in used.insert(id + " " + jti).inserted }
        return fresh ? client : nil
    }

    private func verifiedClaims(_ token: String, keys: JSONWebKeySet, algorithms: Set<JWSAlgorithm>) -> [String: JSONValue]? {
        guard let jws = try? CompactJWS(parsing: token),
            (try? JWSSignatureVerifier(allowedAlgorithms: algorithms).verify(jws, keySet: keys)) != nil
        else { return nil }
        return try? JSONParser().parseObject(jws.payload)
    }

    private static func audience(_ value: JSONValue?, contains expected: String) -> Bool {
        if value?.stringValue == expected { return true }
        return value?.arrayValue?.contains { $0.stringValue == expected } ?? false
    }
}
