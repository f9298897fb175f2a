import Crypto
import Federate
import FederateApple
import FederateTestSupport
import Foundation
import Testing

@Suite("Apple client secret")
struct AppleClientSecretTests {
    static let key = P256.Signing.PrivateKey()

    @Test func secretHasApplesClaimsAndVerifiesWithThePublicKey() throws {
        let generator = try AppleClientSecret(
            teamID: "TEAM123456", keyID: "KEY1234567", clientID: "com.example.web", privateKeyPEM: Self.key.pemRepresentation,
            lifetime: .seconds(3600))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let secret = try generator.make(now: now)
        let jws = try CompactJWS(parsing: secret)
        #expect(jws.header.algorithm == .es256)
        #expect(jws.header.keyID == "KEY1234567")
        let jwk = try #require(JWSSigningKey(p256: Self.key, keyID: "KEY1234567").publicJWK())
        let keySet = try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(jwk)]]))
        _ = try JWSSignatureVerifier(allowedAlgorithms: [.es256]).verify(jws, keySet: keySet)
        let claims = try JSONParser().parseObject(jws.payload)
        #expect(claims["iss"] == "TEAM123456")
        #expect(claims["sub"] == "com.example.web")
        #expect(claims["aud"] == "https://appleid.apple.com")
        #expect(claims["iat"] == .integer(1_800_000_000))
        #expect(claims["exp"] == .integer(1_800_003_600))
    }

    @Test func lifetimeIsBoundedAndKeyMustBeP256() throws {
        let pem = Self.key.pemRepresentation
        #expect(throws: FederateError.self) {
            try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: pem, lifetime: .seconds(15_777_001))
        }
        #expect(throws: FederateError.self) {
            try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: pem, lifetime: .seconds(0))
        }
        _ = try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: pem, lifetime: .seconds(15_777_000))
        let p384 = P384.Signing.PrivateKey().pemRepresentation
        let error = #expect(throws: FederateError.self) {
            try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: p384)
        }
        #expect(error?.code == .invalidKey)
        #expect(throws: FederateError.self) { try AppleClientSecret(teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: "not a key") }
    }

    @Test func cacheReusesThenRenewsBeforeExpiry() throws {
        let generator = try AppleClientSecret(
            teamID: "T", keyID: "K", clientID: "C", privateKeyPEM: Self.key.pemRepresentation, lifetime: .seconds(1000))
        let cache = AppleClientSecretCache(generator: generator)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try cache.secret(now: start)
        #expect(try cache.secret(now: start.addingTimeInterval(500)) == first)
        let renewed = try cache.secret(now: start.addingTimeInterval(950))  // 50 s left < 100 s margin
        #expect(renewed != first)
        #expect(try cache.secret(now: start.addingTimeInterval(960)) == renewed)
    }
}

@Suite("Apple callback and user JSON")
struct AppleCallbackTests {
    @Test func firstAuthorizationCarriesUser() throws {
        let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@privaterelay.appleid.com"}"#
        let body = "state=s1&code=c1&user=" + FormURLEncoding.escape(user)
        let callback = try AppleCallback(formBody: Array(body.utf8))
        #expect(callback.user?.firstName == "Ada")
        #expect(callback.user?.displayName == "Ada Lovelace")
        #expect(callback.user?.email == "ada@privaterelay.appleid.com")
        #expect(callback.response.parameters["code"] == "c1")
        #expect(try AppleCallback(formBody: Array("state=s1&code=c2".utf8)).user == nil)
    }

    @Test(arguments: ["[]", "{\"name\":\"Ada\"}", "{\"email\":5}", "{\"name\":{\"firstName\":1}}", "not json"])
    func malformedUserIsRefused(user: String) {
        let error = #expect(throws: FederateError.self) {
            try AppleCallback(formBody: Array(("state=s&code=c&user=" + FormURLEncoding.escape(user)).utf8))
        }
        #expect(error?.code == .invalidCallback)
    }

    @Test func duplicatedParametersAreRefused() {
        #expect(throws: FederateError.self) { try AppleCallback(formBody: Array("state=s&code=c&code=d".utf8)) }
    }
}

@Suite("Apple ID tokens and notifications")
struct AppleTokenTests {
    static let key: JWSSigningKey = {
        do { return try TestIssuer.rsaKey(keyID: "apple-1") } catch { fatalError("\(error)") }
    }()
    static let now = 1_800_000_000.0
    static let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: now))
    static let keys: JSONWebKeySet = (try? JSONWebKeySet(jwks: Array(TestIssuer.jwks(for: [key]).utf8))) ?? .empty

    static func token(_ change: [String: JSONValue] = [:], algorithm: JWSAlgorithm = .rs256) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.web", "sub": "001234.abcdef",
            "iat": .integer(Int64(now) - 10), "exp": .integer(Int64(now) + 600), "email": "x@privaterelay.appleid.com",
            "email_verified": "true", "is_private_email": "true", "real_user_status": 2, "nonce_supported": true,
        ]
        claims.merge(change) { _, new in new }
        return try key.sign(claims: claims, algorithm: algorithm)
    }

    @Test func stringBooleansAndRealUserStatusAreDecoded() async throws {
        let verifier = try AppleIDTokenVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let identity = try await verifier.verify(Self.token(), rawNonce: nil)
        #expect(identity.userID == "001234.abcdef")
        #expect(identity.emailVerified == true)
        #expect(identity.isPrivateEmail == true)
        #expect(identity.realUserStatus == 2)
        #expect(identity.nonceSupported == true)
        let booleans = try await verifier.verify(Self.token(["email_verified": false, "is_private_email": "false"]), rawNonce: nil)
        #expect(booleans.emailVerified == false && booleans.isPrivateEmail == false)
        await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["email_verified": "maybe"]), rawNonce: nil)
        }
        await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["real_user_status": 7]), rawNonce: nil)
        }
    }

    @Test func bearerVerificationThroughTheRouterAgreesWithVerify() async throws {
        let verifier = try AppleIDTokenVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let router = CallerTokenRouter(idTokens: verifier)
        let routed = try await router.verify(Self.token())
        #expect(routed.providerID == "apple.com" && routed.subject == "001234.abcdef")
        // Apple's claims are read the same way: a malformed email_verified is refused through the router too.
        let refused = await #expect(throws: FederateError.self) { try await router.verify(Self.token(["email_verified": "maybe"])) }
        let refusedDirectly = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["email_verified": "maybe"]))
        }
        #expect(refused?.code != nil && refused?.code == refusedDirectly?.code)
        let audience = await #expect(throws: FederateError.self) { try await router.verify(Self.token(["aud": "com.other"])) }
        #expect(audience?.code == .audienceMismatch)
    }

    @Test func nonceRawOrHashed() async throws {
        let verifier = try AppleIDTokenVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let hashed = AppleNonceMode.sha256Hex.expectedClaim(for: "raw-nonce")
        #expect(hashed.count == 64 && hashed == hashed.lowercased())
        _ = try await verifier.verify(Self.token(["nonce": .string(hashed)]), rawNonce: "raw-nonce", nonceMode: .sha256Hex)
        _ = try await verifier.verify(Self.token(["nonce": "raw-nonce"]), rawNonce: "raw-nonce", nonceMode: .raw)
        let error = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["nonce": "raw-nonce"]), rawNonce: "raw-nonce", nonceMode: .sha256Hex)
        }
        #expect(error?.code == .nonceMismatch)
    }

    @Test func wrongIssuerAudienceAndAlgorithmAreRefused() async throws {
        let verifier = try AppleIDTokenVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let issuer = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(["iss": "https://evil.example"])) }
        #expect(issuer?.code == .issuerMismatch)
        let audience = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(["aud": "com.other"])) }
        #expect(audience?.code == .audienceMismatch)
        let ps256 = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(algorithm: .ps256)) }
        #expect(ps256?.code == .disallowedAlgorithm)
    }

    static func notification(_ events: String, jti: String = "n-1") throws -> [UInt8] {
        let jwt = try token(["events": .string(events), "jti": .string(jti)])
        return JSONSerializer.bytes(["payload": .string(jwt)])
    }

    @Test func notificationsAreVerifiedAndTyped() async throws {
        let verifier = try AppleNotificationVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let types: [(String, AppleNotification.EventType)] = [
            ("email-disabled", .emailDisabled), ("email-enabled", .emailEnabled), ("consent-revoked", .consentRevoked),
            ("account-delete", .accountDelete), ("something-new", .other("something-new")),
        ]
        for (name, type) in types {
            let events =
                #"{"type":"\#(name)","sub":"001234.abcdef","event_time":1800000000123,"email":"x@privaterelay.appleid.com","is_private_email":"true"}"#
            let note = try await verifier.verify(body: Self.notification(events))
            #expect(note.type == type)
            #expect(note.subject == "001234.abcdef")
            #expect(note.isPrivateEmail == true)
            #expect(abs(note.eventTime.timeIntervalSince1970 - 1_800_000_000.123) < 0.001)
        }
        // A repeated delivery decodes to the same notification (handling must be idempotent).
        let events = #"{"type":"consent-revoked","sub":"s","event_time":1}"#
        let first = try await verifier.verify(body: Self.notification(events))
        let again = try await verifier.verify(body: Self.notification(events))
        #expect(first == again)
    }

    @Test(arguments: [#"{"sub":"s","event_time":1}"#, #"{"type":"x","event_time":1}"#, #"{"type":"x","sub":"s"}"#, "not json"])
    func malformedEventsAreRefused(events: String) async throws {
        let verifier = try AppleNotificationVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        await #expect(throws: FederateError.self) { try await verifier.verify(body: Self.notification(events)) }
    }

    @Test func forgedOrMisaddressedNotificationsAreRefused() async throws {
        let verifier = try AppleNotificationVerifier(clientIDs: ["com.example.web"], keys: Self.keys, clock: Self.clock)
        let forged = try JWSSigningKey.generateRSA(keyID: "apple-1").sign(
            claims: [
                "iss": "https://appleid.apple.com", "aud": "com.example.web", "sub": "s", "iat": .integer(Int64(Self.now)),
                "exp": .integer(Int64(Self.now) + 60), "events": #"{"type":"account-delete","sub":"s","event_time":1}"#,
            ], algorithm: .rs256)
        let error = await #expect(throws: FederateError.self) {
            try await verifier.verify(body: JSONSerializer.bytes(["payload": .string(forged)]))
        }
        #expect(error?.code == .invalidSignature)
        await #expect(throws: FederateError.self) { try await verifier.verify(body: Array("{}".utf8)) }
        let other = try AppleNotificationVerifier(clientIDs: ["com.other"], keys: Self.keys, clock: Self.clock)
        await #expect(throws: FederateError.self) {
            try await other.verify(body: Self.notification(#"{"type":"x","sub":"s","event_time":1}"#))
        }
    }
}
