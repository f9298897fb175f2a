import Federate
import FederateApple
import Foundation

/// Reaches the claim rules with a valid signature: the input's first byte picks a header
/// (`typ` absent, `JWT`, `logout+jwt`, `at+jwt`, `secevent+jwt`, `dpop+jwt`, and with or
/// without `kid`), the rest is the payload, signed as it is (HS256 with the secret every
/// verifier here is configured with). The token then goes through every kind's full
/// verification: ID token, back-channel logout, security event, session, signed userinfo,
/// client assertion, RFC 9068 access token, DPoP proof claims, the generic verifier, and
/// Apple's claim readers. Any input may be refused with a typed error;
/// none may trap, and what is accepted must satisfy its kind's rules byte for byte.
enum ClaimsTarget {
    static let now: Double = 1_767_225_600
    /// Every verifier here checks tokens as of ``now``.
    static let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: now))
    static let issuer = "https://fuzz.example;"
    static let audience = "K-client"
    static let secret = HMACSecret(utf8: "fuzz-claims-secret-of-thirty-two-bytes")
    static let key = JWSSigningKey(hmac: secret)
    static let headers: [[String: JSONValue]] = [
        [:], ["typ": "JWT"], ["typ": "logout+jwt"], ["typ": "at+jwt"], ["typ": "secevent+jwt"], ["typ": "jwt", "kid": "k1"],
        ["kid": "k1"], ["typ": "application/JWT"], ["typ": "dpop+jwt"],
    ]
    static let resource = "https://api.fuzz.example"
    /// The request a DPoP proof must name: `GET` of this URI, carrying the hash of `at`, with
    /// nonce `n1`.
    static let dpopTarget = HTTPTargetURI("https://api.fuzz.example/orders")

    static func verifier(_ rules: ClaimRules) -> JWTVerifier {
        JWTVerifier(rules: rules, allowedAlgorithms: [.hs256], keys: JSONWebKeySet.empty, hmacSecret: secret, clock: clock)
    }

    static let idTokenPolicy = IDTokenPolicy(
        issuers: [issuer], audiences: [audience], allowedAlgorithms: [.hs256], hmacSecret: secret, maxAge: .seconds(3600),
        requiredClaims: ["auth_time"])
    static let kinds: [(name: String, verifier: JWTVerifier)] = [
        ("logout", verifier(.logoutToken(issuers: [issuer], audiences: [audience]))),
        ("security-event", verifier(.securityEvent(issuers: [issuer], audiences: [audience]))),
        ("session", verifier(.sessionToken(issuer: issuer))),
        ("userinfo", verifier(.signedUserInfo(issuer: issuer, clientID: audience))),
        ("client-assertion", verifier(.clientAssertion(clientID: audience, audiences: [issuer]))),
        ("access-token", verifier(.accessToken(issuers: [issuer], resources: [resource]))),
        ("generic", JWTVerifier(issuers: [issuer], audiences: [audience], allowedAlgorithms: [.hs256], keys: JSONWebKeySet.empty, hmacSecret: secret, clock: clock)),
    ]

    /// One input, verified as every kind in one task (the verifications never suspend).
    static func run(_ bytes: [UInt8]) {
        synchronously { await verifyAsEveryKind(bytes) }
    }

    static func verifyAsEveryKind(_ bytes: [UInt8]) async {
        guard let selector = bytes.first else { return }
        let header = headers[Int(selector) % headers.count]
        let payload = Array(bytes.dropFirst())
        guard let token = try? sign(payload: payload, header: header) else { return }

        for expectations in [IDTokenExpectations(), IDTokenExpectations(nonce: "n-\u{212A}", accessToken: "at", authorizationCode: "c", maxAge: .seconds(60))] {
            let verifier = IDTokenVerifier(policy: idTokenPolicy, keys: JSONWebKeySet.empty, clock: clock)
            if let idToken = try? await verifier.verify(token, expecting: expectations) {
                precondition(idToken.issuer.exactlyEquals(issuer), "accepted another issuer")
                precondition(idToken.audiences.contains { $0.exactlyEquals(audience) }, "accepted another audience")
                precondition(idToken.expiresAt.timeIntervalSince1970 + 60 > now, "accepted an expired token")
                precondition(idToken.claims["events"] == nil, "accepted a token with events as an ID token")
                if let nonce = expectations.nonce { precondition(idToken.nonce?.exactlyEquals(nonce) == true, "accepted another nonce") }
                if let type = idToken.header.type { precondition(["jwt", "application/jwt"].contains(type.lowercased()), "accepted typ \(type)") }
                _ = try? AppleIdentity(idToken)
                _ = idToken.emailVerified
            }
        }
        for (name, verifier) in kinds {
            guard let verified = try? await verifier.verify(token) else { continue }
            if let issuer = verified.claims["iss"] { precondition(issuer == .string(Self.issuer) || name == "client-assertion", "\(name): issuer") }
            if name == "logout" { precondition(verified.claims["nonce"] == nil && verified.claims["events"] != nil, "logout rules") }
            if name == "client-assertion" {
                precondition(verified.claims["sub"]?.stringValue?.exactlyEquals(audience) == true, "assertion subject")
            }
            if name == "access-token" { checkAccessToken(verified) }
            _ = try? AppleNotificationVerifier.decode(claims: verified.claims)
        }
        if let dpopTarget, let proof = try? await verifier(
            .dpopProof(method: "GET", target: dpopTarget, accessToken: "at", acceptedNonces: ["n1"], maximumAge: .seconds(60))
        ).verify(token) {
            precondition(proof.header.type?.lowercased() == "dpop+jwt", "proof typ")
            precondition(proof.claims["htm"] == "GET" && proof.claims["nonce"] == "n1", "proof htm or nonce")
            precondition(proof.claims["htu"]?.stringValue.flatMap(HTTPTargetURI.init) == dpopTarget, "proof htu")
            // base64url(SHA-256("at")), computed outside Federate (RFC 9449 §4.2).
            precondition(proof.claims["ath"]?.stringValue == "sda5G2fCr6XjIpiNlGJjjTVN34oe9526mH-BXCK0uu4", "proof ath")
            precondition(proof.claims["jti"]?.stringValue?.isEmpty == false, "proof jti")
        }
    }

    /// What an accepted RFC 9068 token must be: typed, for this resource, with a client and a
    /// `jti`, and a `scope` and `cnf` that read back.
    static func checkAccessToken(_ token: VerifiedJWT) {
        precondition(["at+jwt", "application/at+jwt"].contains(token.header.type?.lowercased() ?? ""), "access token typ")
        precondition((try? token.audiences())?.contains { $0.exactlyEquals(resource) } == true, "access token audience")
        precondition(token.claims["client_id"]?.stringValue?.isEmpty == false && token.claims["jti"]?.stringValue?.isEmpty == false, "client_id, jti")
        if let scope = token.claims["scope"] {
            guard case .string(let text) = scope, let scopes = try? OAuthScopes(parsing: text) else { preconditionFailure("scope accepted, not parsed") }
            precondition(scopes.values.count <= OAuthScopes.maximumCount, "scope count")
        }
        do {
            _ = try TokenConfirmation(in: token.claims)
        } catch {
            preconditionFailure("cnf accepted, not read")
        }
    }

    /// A compact JWS over exactly `payload` (not re-serialised), HS256.
    static func sign(payload: [UInt8], header: [String: JSONValue]) throws -> String {
        try key.sign(payload: payload, algorithm: .hs256, header: header)
    }
}
