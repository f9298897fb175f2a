import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Each token kind's rule set, through the one pipeline with a real signature: every case
/// fails when its rule is dropped from the kind.
@Suite struct TokenKindTests {
    static let now: Double = 1_700_000_000
    static let issuer = "https://issuer.example.com"
    static let audience = "client-123"

    /// Signs `claims` (with `changes`: a value replaces, `.null` removes) and verifies them
    /// with `rules`; returns the error code, or nil when accepted.
    static func code(
        _ rules: ClaimRules, claims: [String: JSONValue], _ changes: [String: JSONValue] = [:],
        header: [String: JSONValue] = ["typ": "JWT"],
        requiresKeyID: Bool = false
    ) async -> FederateError.Code? {
        var claims = claims
        for (name, value) in changes {
            if case .null = value { claims[name] = nil } else { claims[name] = value }
        }
        do {
            let token = try Fixtures.rsa.sign(claims: claims, algorithm: .rs256, header: header)
            _ = try await JWTVerifier(
                rules: rules, allowedAlgorithms: [.rs256], keys: Fixtures.keySet, clock: .fixed(at: Date(timeIntervalSince1970: now)),
                requiresKeyID: requiresKeyID
            ).verify(token)
            return nil
        } catch {
            return error.code
        }
    }

    static let base: [String: JSONValue] = [
        "iss": .string(issuer), "aud": .string(audience), "sub": "user-1", "iat": .double(now - 5), "exp": .double(now + 120),
    ]

    @Test func logoutToken() async {
        let rules = ClaimRules.logoutToken(issuers: [Self.issuer], audiences: [Self.audience])
        let claims = Self.base.merging(["jti": "j-1", "sid": "s-1", "events": [ClaimRules.backChannelLogoutEvent: [:]]]) { $1 }
        let logout: [String: JSONValue] = ["typ": "logout+jwt"]
        #expect(await Self.code(rules, claims: claims, header: logout) == nil)
        #expect(await Self.code(rules, claims: claims, header: [:]) == nil)
        #expect(await Self.code(rules, claims: claims, header: ["typ": "JWT"]) == .tokenTypeMismatch)
        #expect(await Self.code(rules, claims: claims, ["exp": .null], header: logout) == .missingClaim)
        #expect(await Self.code(rules, claims: claims, ["iat": .null], header: logout) == .missingClaim)
        #expect(await Self.code(rules, claims: claims, ["nbf": .double(Self.now + 600)], header: logout) == .notYetValid)
        #expect(await Self.code(rules, claims: claims, ["jti": .null], header: logout) == .invalidLogoutToken)
        #expect(await Self.code(rules, claims: claims, ["events": [:]], header: logout) == .invalidLogoutToken)
        #expect(await Self.code(rules, claims: claims, ["nonce": "n"], header: logout) == .invalidLogoutToken)
        #expect(await Self.code(rules, claims: claims, ["sub": .null, "sid": .null], header: logout) == .invalidLogoutToken)
        #expect(await Self.code(rules, claims: claims, ["aud": [.string(Self.audience), 5]], header: logout) == .invalidClaim)
        #expect(await Self.code(rules, claims: claims, ["iss": "https://issuer.example.com\u{037E}"], header: logout) == .issuerMismatch)
    }

    @Test func securityEvent() async {
        let rules = ClaimRules.securityEvent(issuers: [Self.issuer], audiences: [Self.audience])
        let claims = Self.base.merging([
            "jti": "j-1", "events": ["https://schemas.openid.net/secevent/risc/event-type/sessions-revoked": [:]],
        ]) { $1 }
        #expect(await Self.code(rules, claims: claims) == nil)
        #expect(await Self.code(rules, claims: claims, ["exp": .double(Self.now - 86_400)]) == nil)  // events do not expire
        #expect(await Self.code(rules, claims: claims, ["iat": .null]) == nil)
        #expect(await Self.code(rules, claims: claims, header: ["typ": "secevent+jwt"]) == nil)
        #expect(await Self.code(rules, claims: claims, header: ["typ": "logout+jwt"]) == .tokenTypeMismatch)
        #expect(await Self.code(rules, claims: claims, ["jti": .null]) == .invalidSecurityEvent)
        #expect(await Self.code(rules, claims: claims, ["events": [:]]) == .invalidSecurityEvent)
        #expect(await Self.code(rules, claims: claims, ["iat": .double(Self.now + 3600)]) == .issuedInFuture)
        #expect(await Self.code(rules, claims: claims, ["aud": "other"]) == .audienceMismatch)
    }

    @Test func sessionToken() async {
        let rules = ClaimRules.sessionToken(issuer: Self.issuer)
        let claims = Self.base.merging(["sid": "s-1", "auth_time": .double(Self.now - 5)]) { $1 }
        func code(
            _ changes: [String: JSONValue] = [:], header: [String: JSONValue] = ["typ": "federate-session+jwt"]
        ) async -> FederateError.Code? {
            await Self.code(rules, claims: claims, changes, header: header)
        }
        // Explicitly typed: an ID token's `typ` (or none) is another kind of token.
        #expect(await code(header: ["typ": "JWT"]) == .tokenTypeMismatch)
        #expect(await code(header: [:]) == .tokenTypeMismatch)
        #expect(await code(header: ["typ": "application/federate-session+jwt"]) == nil)
        #expect(await code() == nil)
        #expect(await code(["exp": .double(Self.now - 30)]) == nil)  // tolerance, as for every kind
        #expect(await code(["exp": .double(Self.now - 61)]) == .tokenExpired)
        #expect(await code(["sid": .null]) == .missingClaim)
        #expect(await code(["auth_time": .null]) == .missingClaim)
        #expect(await code(["auth_time": .double(-1e300)]) == .invalidClaim)
        #expect(await code(["events": [:]]) == .tokenTypeMismatch)
        #expect(await code(["sub": .null]) == .missingClaim)
    }

    @Test func signedUserInfo() async {
        let rules = ClaimRules.signedUserInfo(issuer: Self.issuer, clientID: Self.audience)
        let claims: [String: JSONValue] = ["sub": "user-1", "email": "a@example.com"]
        #expect(await Self.code(rules, claims: claims) == nil)
        #expect(await Self.code(rules, claims: Self.base) == nil)
        #expect(await Self.code(rules, claims: claims, ["exp": .double(Self.now - 3600)]) == .tokenExpired)
        #expect(await Self.code(rules, claims: claims, ["iss": "https://evil.example"]) == .issuerMismatch)
        #expect(await Self.code(rules, claims: claims, ["aud": "other"]) == .audienceMismatch)
        #expect(await Self.code(rules, claims: claims, ["sub": .null]) == .missingClaim)
        #expect(await Self.code(rules, claims: claims, header: ["typ": "at+jwt"]) == .tokenTypeMismatch)
        #expect(await Self.code(rules, claims: claims, ["events": [:]]) == .tokenTypeMismatch)
    }

    @Test func clientAssertion() async {
        let endpoint = "https://op.example/token"
        let rules = ClaimRules.clientAssertion(clientID: "app", audiences: [endpoint])
        let claims: [String: JSONValue] = [
            "iss": "app", "sub": "app", "aud": .string(endpoint), "exp": .double(Self.now + 60), "jti": "a-1",
        ]
        #expect(await Self.code(rules, claims: claims) == nil)
        #expect(await Self.code(rules, claims: claims, ["sub": "other"]) == .invalidClaim)
        #expect(await Self.code(rules, claims: claims, ["iss": "other"]) == .issuerMismatch)
        #expect(await Self.code(rules, claims: claims, ["aud": "https://op.example/revoke"]) == .audienceMismatch)
        #expect(await Self.code(rules, claims: claims, ["exp": .double(Self.now + 3600)]) == .invalidClaim)
        #expect(await Self.code(rules, claims: claims, ["exp": .double(Self.now - 120)]) == .tokenExpired)
        #expect(await Self.code(rules, claims: claims, ["jti": .null]) == .missingClaim)
    }

    @Test func idTokenRefusesOtherKinds() async {
        let rules = Fixtures.policy {
            $0.issuers = [Self.issuer]
            $0.audiences = [Self.audience]
        }.rules(for: IDTokenExpectations())
        #expect(await Self.code(rules, claims: Self.base) == nil)
        #expect(await Self.code(rules, claims: Self.base, header: ["typ": "logout+jwt"]) == .tokenTypeMismatch)
        #expect(await Self.code(rules, claims: Self.base, header: ["typ": "at+jwt"]) == .tokenTypeMismatch)
        #expect(
            await Self.code(rules, claims: Self.base, ["events": [ClaimRules.backChannelLogoutEvent: [:]]], header: [:])
                == .tokenTypeMismatch)
    }

    @Test func genericVerifierRefusesNonStringAudienceEntries() async {
        // The old JWTVerifier dropped them silently.
        let verifier = JWTVerifier(issuers: [Self.issuer], audiences: [Self.audience], allowedAlgorithms: [.rs256], keys: Fixtures.keySet)
        #expect(await Self.code(verifier.rules, claims: Self.base, ["aud": [.string(Self.audience), 1]]) == .invalidClaim)
        #expect(await Self.code(verifier.rules, claims: Self.base) == nil)
    }
}
