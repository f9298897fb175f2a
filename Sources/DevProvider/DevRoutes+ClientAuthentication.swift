import Federate
import Foundation

/// Why client authentication failed, for the `invalid_client` answer.
struct DevAuthenticationFailure: Error {
    /// The `error_description`: what was wrong, never a secret.
    let reason: String
    /// Whether the client tried `Authorization: Basic` (then the answer is 401 with
    /// `WWW-Authenticate`, RFC 6749 §5.2).
    let usedBasic: Bool
}

extension DevRoutes {
    /// Authenticates the client of a token or revocation request: Basic (form-encoded
    /// credentials), `client_secret_post`, `private_key_jwt`, or `none`, each only when the
    /// client accepts that method. In the Apple flavour the secret must be a valid ES256
    /// client-secret JWT. A failure says why.
    func authenticate(
        _ parameters: [String: String], authorization: String?, endpoint: String
    ) async -> Result<DevClient, DevAuthenticationFailure> {
        func fail(_ reason: String) -> Result<DevClient, DevAuthenticationFailure> {
            .failure(DevAuthenticationFailure(reason: reason, usedBasic: authorization != nil))
        }
        if let authorization {
            guard authorization.hasPrefix("Basic "), let (id, secret) = Self.basicCredentials(authorization) else {
                return fail("the Authorization header is not Basic with form-encoded credentials")
            }
            guard let client = client(id) else { return fail("no client with this client_id") }
            guard client.acceptedAuthMethods.contains(.clientSecretBasic) else {
                return fail("this client may not use client_secret_basic")
            }
            guard parameters["client_assertion"] == nil else { return fail("send one client authentication, not two") }
            guard await verifySecret(secret, of: client) else { return fail(secretFailure(client)) }
            return .success(client)
        }
        if let assertion = parameters["client_assertion"] {
            guard parameters["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" else {
                return fail("client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            }
            return await verifyAssertion(assertion, claimedID: parameters["client_id"], endpoint: endpoint)
        }
        guard let client = client(parameters["client_id"]) else { return fail("no client with this client_id") }
        if let secret = parameters["client_secret"] {
            guard client.acceptedAuthMethods.contains(.clientSecretPost) else { return fail("this client may not use client_secret_post") }
            guard await verifySecret(secret, of: client) else { return fail(secretFailure(client)) }
            return .success(client)
        }
        return client.acceptedAuthMethods.contains(.none) ? .success(client) : fail("this client must authenticate")
    }

    private func secretFailure(_ client: DevClient) -> String {
        client.teamID != nil
            ? "the client_secret JWT must be ES256 by the registered key, with iss the team ID, sub the client_id and aud the issuer"
            : "the client secret is wrong"
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
    private func verifySecret(_ secret: String, of client: DevClient) async -> Bool {
        if let team = client.teamID {
            return await verifyAppleClientSecret(secret, client: client, team: team)
        }
        guard let expected = client.secret else { return false }
        return ConstantTime.equals(secret, expected)
    }

    /// Apple's rules, through the one JWT pipeline: ES256 by the registered key, `iss` the
    /// team, `sub` the client ID, `aud` the issuer, not expired, and at most 15,777,000 s
    /// between `iat` and `exp`.
    private func verifyAppleClientSecret(_ secret: String, client: DevClient, team: String) async -> Bool {
        guard let keys = client.publicKeys else { return false }
        let rules: ClaimRules = [
            IssuerRule([team]), SubjectRule(accepted: [client.id]), AudienceRule([issuer]), ExpiryRule(), IssuedAtRule(),
            MaximumLifetimeRule(maximum: .seconds(15_777_000)),
        ]
        let verifier = JWTVerifier(rules: rules, allowedAlgorithms: [.es256], keys: keys, clockTolerance: .zero, clock: configuration.clock)
        return (try? await verifier.verify(secret)) != nil
    }

    /// RFC 7523 client assertions, through the one JWT pipeline
    /// (``FederateTokens/ClaimRules/clientAssertion(clientID:audiences:maximumLifetime:)``): signed by a
    /// registered key, `iss` = `sub` = the client, `aud` the token endpoint (at every endpoint,
    /// as RFC 7523 §3 allows), the endpoint called or the issuer, unexpired, at most 5 minutes
    /// long, `jti` used once.
    private func verifyAssertion(
        _ assertion: String, claimedID: String?, endpoint: String
    ) async -> Result<DevClient, DevAuthenticationFailure> {
        func fail(_ reason: String) -> Result<DevClient, DevAuthenticationFailure> {
            .failure(DevAuthenticationFailure(reason: "client_assertion refused: " + reason, usedBasic: false))
        }
        // The client is named by the (not yet verified) `iss`; its own keys then verify
        // everything, on this one parse.
        guard var jws = try? CompactJWS(parsing: assertion), let unverified = try? jws.readUnverifiedClaims(),
            let id = unverified["iss"]?.stringValue
        else { return fail("not a JWT with a string iss") }
        guard claimedID.map({ $0.exactlyEquals(id) }) ?? true else { return fail("client_id differs from the assertion's iss") }
        if jws.header.algorithm?.isSymmetric == true { return await verifySecretAssertion(jws, clientID: id, endpoint: endpoint) }
        guard let client = client(id), client.teamID == nil, let keys = client.publicKeys else {
            return fail("no client with registered keys has this iss")
        }
        guard client.acceptedAuthMethods.contains(.privateKeyJWT) else { return fail("this client may not use private_key_jwt") }
        let verifier = JWTVerifier(
            rules: .clientAssertion(clientID: client.id, audiences: [baseURL + endpoints.token, endpoint, issuer]),
            allowedAlgorithms: [.rs256, .es256, .ps256, .edDSA], keys: keys, clockTolerance: .zero, clock: configuration.clock)
        let verified: VerifiedJWT
        do {
            verified = try await verifier.verify(jws)
        } catch {
            return fail("\(error.code): \(error.message)")
        }
        return firstUse(of: verified, by: client)
    }

    /// Whether the assertion's `jti` is new for this client (each assertion is single use).
    func firstUse(of verified: VerifiedJWT, by client: DevClient) -> Result<DevClient, DevAuthenticationFailure> {
        func fail(_ reason: String) -> Result<DevClient, DevAuthenticationFailure> {
            .failure(DevAuthenticationFailure(reason: "client_assertion refused: " + reason, usedBasic: false))
        }
        guard let jti = try? verified.requiredString("jti") else { return fail("no jti") }
        let fresh = state.usedAssertionIDs.withLock { used in used.insert(ExactString(client.id + " " + jti)).inserted }
        return fresh ? .success(client) : fail("this jti was already used")
    }
}
