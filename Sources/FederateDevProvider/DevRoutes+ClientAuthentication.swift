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

    /// Apple's rules, through the one JWT pipeline: ES256 by the registered key, `iss` the
    /// team, `sub` the client ID, `aud` the issuer, not expired, and at most 15,777,000 s
    /// between `iat` and `exp`.
    private func verifyAppleClientSecret(_ secret: String, client: DevClient, team: String) -> Bool {
        guard let keys = client.publicKeys else { return false }
        let rules: ClaimRules = [
            IssuerRule([team]), SubjectRule(accepted: [client.id]), AudienceRule([issuer]), ExpiryRule(), IssuedAtRule(),
            MaximumLifetimeRule(seconds: 15_777_000),
        ]
        return (try? JWTVerifier(rules: rules, allowedAlgorithms: [.es256], keys: keys, clockTolerance: 0).verify(secret, keySet: keys)) != nil
    }

    /// RFC 7523 client assertions, through the one JWT pipeline
    /// (``Federate/ClaimRules/clientAssertion(clientID:audiences:maximumLifetime:)``): signed by a
    /// registered key, `iss` = `sub` = the client, `aud` the endpoint or the issuer, unexpired,
    /// at most 5 minutes long, `jti` used once.
    private func verifyAssertion(_ assertion: String, claimedID: String?, endpoint: String) -> DevClient? {
        // The client is named by the (not yet verified) `iss`; its own keys then verify everything.
        guard let jws = try? CompactJWS(parsing: assertion), let payload = try? JSONParser().parseObject(jws.payload),
            let id = payload["iss"]?.stringValue, claimedID.map({ $0.exactlyEquals(id) }) ?? true,
            let client = client(id), client.teamID == nil, let keys = client.publicKeys
        else { return nil }
        let verifier = JWTVerifier(
            rules: .clientAssertion(clientID: client.id, audiences: [endpoint, issuer]), allowedAlgorithms: [.rs256, .es256, .ps256, .edDSA],
            keys: keys, clockTolerance: 0)
        guard let verified = try? verifier.verify(assertion, keySet: keys), let jti = try? verified.requiredString("jti") else { return nil }
        let fresh = state.usedAssertionIDs.withLock { used in used.insert(client.id + " " + jti).inserted }
        return fresh ? client : nil
    }
}
