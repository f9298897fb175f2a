import Federate
import FederateGoogle
import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

enum GoogleFixtures {
    static let key: JWSSigningKey = {
        do { return try TestIssuer.rsaKey(keyID: "g-1") } catch { fatalError("\(error)") }
    }()
    static let keys: JSONWebKeySet = (try? JSONWebKeySet(jwks: Array(TestIssuer.jwks(for: [key]).utf8))) ?? .empty
    static let now = 1_800_000_000.0
    /// The verifiers' clock, stopped at ``now``.
    static let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: now))

    static func sign(_ claims: [String: JSONValue], header: [String: JSONValue] = ["typ": "JWT"]) throws -> String {
        try key.sign(claims: claims, algorithm: .rs256, header: header)
    }
}

@Suite("Google ID tokens")
struct GoogleIDTokenTests {
    static func token(_ change: [String: JSONValue?] = [:]) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": "https://accounts.google.com", "aud": "web.apps.googleusercontent.com", "sub": "1100",
            "iat": .integer(Int64(GoogleFixtures.now) - 10), "exp": .integer(Int64(GoogleFixtures.now) + 600),
            "email": "ada@example.com", "email_verified": true,
        ]
        for (name, value) in change {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return try GoogleFixtures.sign(claims)
    }

    @Test func bothIssuerSpellingsAreAccepted() async throws {
        let verifier = try GoogleIDTokenVerifier(
            clientIDs: ["web.apps.googleusercontent.com"], keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
        #expect(try await verifier.verify(Self.token()).subject == "1100")
        #expect(try await verifier.verify(Self.token(["iss": "accounts.google.com"])).subject == "1100")
        let error = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["iss": "https://accounts.google.com/"]))
        }
        #expect(error?.code == .issuerMismatch)
    }

    @Test func hostedDomainComesFromTheTokenOnly() async throws {
        let verifier = try GoogleIDTokenVerifier(
            clientIDs: ["web.apps.googleusercontent.com"], hostedDomains: ["example.com"], keys: GoogleFixtures.keys,
            clock: GoogleFixtures.clock)
        _ = try await verifier.verify(Self.token(["hd": "example.com"]))
        for change: [String: JSONValue?] in [["hd": nil], ["hd": "evil.example"], ["hd": 7]] {
            let error = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(change)) }
            #expect(error?.code == .hostedDomainMismatch)
        }
    }

    @Test func bearerVerificationThroughTheRouterAgreesWithVerify() async throws {
        let verifier = try GoogleIDTokenVerifier(
            clientIDs: ["web.apps.googleusercontent.com"], hostedDomains: ["example.com"], keys: GoogleFixtures.keys,
            clock: GoogleFixtures.clock)
        let router = CallerTokenRouter(idTokens: verifier)
        let token = try Self.token(["hd": "example.com"])
        let routed = try await router.verify(token)
        #expect(routed.providerID == "google.com" && routed.subject == "1100")
        #expect(try await verifier.verify(token).subject == routed.subject)
        // The same refusal each way: the policy's additional rule (hd) runs on both.
        let refused = await #expect(throws: FederateError.self) { try await router.verify(Self.token(["hd": "evil.example"])) }
        #expect(refused?.code == .hostedDomainMismatch)
        // With Google's keys at hand, on the caller's executor.
        let counter = ExecutorSwitchCounter()
        let warm = try await counter.run { try await router.verify(token).subject }
        #expect(warm.value == "1100" && warm.switches == 0)
    }

    @Test func authorizedPartyForAnotherOfYourClients() async throws {
        // An Android app's token sent to the server: aud is the server's client, azp the app's.
        let verifier = try GoogleIDTokenVerifier(
            clientIDs: ["web.apps.googleusercontent.com"], authorizedParties: ["android.apps.googleusercontent.com"],
            keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
        _ = try await verifier.verify(Self.token(["azp": "android.apps.googleusercontent.com"]))
        let error = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["azp": "stranger.apps.googleusercontent.com"]))
        }
        #expect(error?.code == .azpMismatch)
    }

    @Test func nonceAndAudienceAreChecked() async throws {
        let verifier = try GoogleIDTokenVerifier(
            clientIDs: ["web.apps.googleusercontent.com"], keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
        _ = try await verifier.verify(Self.token(["nonce": "n1"]), nonce: "n1")
        let nonce = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(["nonce": "n2"]), nonce: "n1") }
        #expect(nonce?.code == .nonceMismatch)
        let audience = await #expect(throws: FederateError.self) { try await verifier.verify(Self.token(["aud": "other"])) }
        #expect(audience?.code == .audienceMismatch)
    }
}

@Suite("Firebase ID tokens")
struct FirebaseIDTokenTests {
    static let project = "demo-project"

    static func token(_ change: [String: JSONValue?] = [:], header: [String: JSONValue] = ["typ": "JWT"]) throws -> String {
        let now = Int64(GoogleFixtures.now)
        var claims: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/" + project), "aud": .string(project), "sub": "uid-1",
            "iat": .integer(now - 10), "exp": .integer(now + 3600), "auth_time": .integer(now - 100),
            "firebase": ["sign_in_provider": "google.com", "identities": ["google.com": ["1100"]]],
        ]
        for (name, value) in change {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return try GoogleFixtures.sign(claims, header: header)
    }

    static var verifier: FirebaseIDTokenVerifier {
        (try? FirebaseIDTokenVerifier(projectID: project, keys: GoogleFixtures.keys, clock: GoogleFixtures.clock))
            ?? { fatalError("verifier") }()
    }

    @Test func validTokenGivesUIDAndSignInProvider() async throws {
        let token = try await Self.verifier.verify(Self.token(), checkRevoked: false)
        #expect(token.uid == "uid-1")
        #expect(token.signInProvider == "google.com")
        #expect(token.identities["google.com"] == ["1100"])
        #expect(token.authTime == Date(timeIntervalSince1970: GoogleFixtures.now - 100))
    }

    @Test(
        arguments: [
            (["iss": JSONValue.string("https://securetoken.google.com/other")], FederateError.Code.issuerMismatch),
            (["aud": "other"], .audienceMismatch),
            (["auth_time": nil], .missingClaim),
            (["auth_time": .integer(Int64(GoogleFixtures.now) + 3600)], .invalidClaim),
            (["exp": .integer(Int64(GoogleFixtures.now) - 60)], .idTokenExpired),
            (["iat": .integer(Int64(GoogleFixtures.now) + 60)], .issuedInFuture),
            (["sub": ""], .invalidClaim),
            (["sub": .string(String(repeating: "u", count: 129))], .invalidClaim),
        ] as [([String: JSONValue?], FederateError.Code)])
    func firebaseRulesAreEnforced(change: [String: JSONValue?], code: FederateError.Code) async throws {
        let error = await #expect(throws: FederateError.self) { try await Self.verifier.verify(Self.token(change), checkRevoked: false) }
        #expect(error?.code == code)
    }

    @Test func kidIsRequired() async throws {
        // Signed by the right key, but the header names no key.
        let claims = try JSONParser().parseObject(CompactJWS(parsing: Self.token()).payload)
        let withoutKid = try GoogleFixtures.key.withKeyID(nil).sign(claims: claims, algorithm: .rs256)
        let error = await #expect(throws: FederateError.self) { try await Self.verifier.verify(withoutKid, checkRevoked: false) }
        #expect(error?.code == .unknownKey)
    }

    @Test func revocationCheckUsesTheLookup() async throws {
        let states: [String: FirebaseUserState] = [
            "uid-1": FirebaseUserState(),
            "revoked": FirebaseUserState(tokensValidAfter: Date(timeIntervalSince1970: GoogleFixtures.now - 50)),
            "disabled": FirebaseUserState(disabled: true),
        ]
        let verifier = try FirebaseIDTokenVerifier(
            projectID: Self.project, keys: GoogleFixtures.keys, userLookup: { states[$0] }, clock: GoogleFixtures.clock)
        _ = try await verifier.verify(Self.token(), checkRevoked: true)
        let revoked = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["sub": "revoked"]), checkRevoked: true)
        }
        #expect(revoked?.code == .idTokenRevoked)
        let disabled = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["sub": "disabled"]), checkRevoked: true)
        }
        #expect(disabled?.code == .userDisabled)
        let unknown = await #expect(throws: FederateError.self) {
            try await verifier.verify(Self.token(["sub": "nobody"]), checkRevoked: true)
        }
        #expect(unknown?.code == .userNotFound)
        // Without the check, the revoked user's token still verifies (as in the Admin SDKs).
        _ = try await verifier.verify(Self.token(["sub": "revoked"]), checkRevoked: false)
    }

    @Test func configurationIsChecked() {
        let missing = #expect(throws: FederateError.self) {
            try FirebaseIDTokenVerifier(projectID: nil, keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
        }
        #expect(missing?.code == .projectIDMissing)
        #expect(throws: FederateError.self) {
            try FirebaseIDTokenVerifier(
                projectID: "p", clockTolerance: .seconds(301), keys: GoogleFixtures.keys, clock: GoogleFixtures.clock)
        }
    }

    @Test func projectIDResolutionOrder() {
        let account = Array(#"{"type":"service_account","project_id":"from-json"}"#.utf8)
        let environment = ["GOOGLE_CLOUD_PROJECT": "from-google-env", "GCLOUD_PROJECT": "from-gcloud-env"]
        #expect(FirebaseProjectID.resolve(explicit: "explicit", serviceAccountJSON: account, environment: environment) == "explicit")
        #expect(FirebaseProjectID.resolve(serviceAccountJSON: account, environment: environment) == "from-json")
        #expect(FirebaseProjectID.resolve(environment: environment) == "from-google-env")
        #expect(FirebaseProjectID.resolve(environment: ["GCLOUD_PROJECT": "from-gcloud-env"]) == "from-gcloud-env")
        #expect(FirebaseProjectID.resolve(environment: [:]) == nil)
    }
}
