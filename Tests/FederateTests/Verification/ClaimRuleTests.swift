import Crypto
import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Each claim rule on its own: what it accepts and the code it throws.
@Suite struct ClaimRuleTests {
    static let now: Double = 1_700_000_000
    static let context = ClaimContext(now: Date(timeIntervalSince1970: now), clockTolerance: .seconds(60))

    static func token(
        _ claims: [String: JSONValue], header: [String: JSONValue] = [:], algorithm: JWSAlgorithm = .rs256
    ) throws -> VerifiedJWT {
        var members: [String: JSONValue] = ["alg": .string(algorithm.rawValue)]
        for (name, value) in header { members[name] = value }
        return VerifiedJWT(header: try JOSEHeader(members: members), claims: claims, algorithm: algorithm, keyID: nil)
    }

    /// The code `rule` throws for `claims`, or nil when it passes.
    static func code(_ rule: some ClaimRule, _ claims: [String: JSONValue], header: [String: JSONValue] = [:]) throws -> FederateError.Code?
    {
        do {
            try rule.check(try token(claims, header: header), context: context)
            return nil
        } catch let error as FederateError {
            return error.code
        }
    }

    @Test func explicitType() throws {
        #expect(try Self.code(ExplicitTypeRule.jwt, [:]) == nil)
        #expect(try Self.code(ExplicitTypeRule.jwt, [:], header: ["typ": "JWT"]) == nil)
        #expect(try Self.code(ExplicitTypeRule.jwt, [:], header: ["typ": "application/jwt"]) == nil)
        #expect(try Self.code(ExplicitTypeRule.jwt, [:], header: ["typ": "logout+jwt"]) == .tokenTypeMismatch)
        #expect(try Self.code(ExplicitTypeRule.jwt, [:], header: ["typ": "at+jwt"]) == .tokenTypeMismatch)
        #expect(try Self.code(ExplicitTypeRule.jwt, [:], header: ["typ": "JW\u{1D413}"]) == .tokenTypeMismatch)
        #expect(try Self.code(ExplicitTypeRule.accessToken, [:]) == .tokenTypeMismatch)
        #expect(try Self.code(ExplicitTypeRule.accessToken, [:], header: ["typ": "application/AT+JWT"]) == nil)
        #expect(try Self.code(ExplicitTypeRule.logoutToken, [:], header: ["typ": "JWT"]) == .tokenTypeMismatch)
    }

    @Test func forbiddenClaim() throws {
        #expect(try Self.code(ForbiddenClaimRule.noEvents, ["sub": "x"]) == nil)
        #expect(try Self.code(ForbiddenClaimRule.noEvents, ["events": [:]]) == .tokenTypeMismatch)
        #expect(try Self.code(ForbiddenClaimRule("nonce", code: .invalidLogoutToken), ["nonce": "n"]) == .invalidLogoutToken)
    }

    @Test func issuer() throws {
        let rule = IssuerRule(["https://a.example;"])
        #expect(try Self.code(rule, ["iss": "https://a.example;"]) == nil)
        #expect(try Self.code(rule, ["iss": "https://a.example\u{037E}"]) == .issuerMismatch)
        #expect(try Self.code(rule, [:]) == .missingClaim)
        #expect(try Self.code(rule, ["iss": 1]) == .invalidClaim)
        #expect(try Self.code(IssuerRule(["x"], required: false), [:]) == nil)
    }

    @Test func audience() throws {
        let rule = AudienceRule(["K-client"])
        #expect(try Self.code(rule, ["aud": "K-client"]) == nil)
        #expect(try Self.code(rule, ["aud": ["other", "K-client"]]) == nil)
        #expect(try Self.code(rule, ["aud": "\u{212A}-client"]) == .audienceMismatch)
        #expect(try Self.code(rule, ["aud": ["K-client", 7]]) == .invalidClaim)
        #expect(try Self.code(rule, ["aud": []]) == .invalidClaim)
        #expect(try Self.code(rule, [:]) == .missingClaim)
        #expect(try Self.code(AudienceRule(["x"], required: false), [:]) == nil)
    }

    @Test func authorizedParty() throws {
        let rule = AuthorizedPartyRule(["K-client"])
        #expect(try Self.code(rule, ["aud": "K-client"]) == nil)
        #expect(try Self.code(rule, ["aud": "K-client", "azp": "\u{212A}-client"]) == .azpMismatch)
        #expect(try Self.code(rule, ["aud": ["K-client", "other"]]) == .azpMismatch)
        #expect(try Self.code(rule, ["aud": ["K-client", "other"], "azp": "K-client"]) == nil)
    }

    @Test func subject() throws {
        #expect(try Self.code(SubjectRule(), ["sub": "u"]) == nil)
        #expect(try Self.code(SubjectRule(), [:]) == .missingClaim)
        #expect(try Self.code(SubjectRule(), ["sub": ""]) == .invalidClaim)
        #expect(try Self.code(SubjectRule(), ["sub": .string(String(repeating: "a", count: 256))]) == .invalidClaim)
        #expect(try Self.code(SubjectRule(accepted: ["K"]), ["sub": "\u{212A}"]) == .invalidClaim)
    }

    @Test func expiry() throws {
        #expect(try Self.code(ExpiryRule(), ["exp": .double(Self.now + 1)]) == nil)
        #expect(try Self.code(ExpiryRule(), ["exp": .double(Self.now - 30)]) == nil)  // tolerance
        #expect(try Self.code(ExpiryRule(), ["exp": .double(Self.now - 61)]) == .tokenExpired)
        #expect(try Self.code(ExpiryRule(), [:]) == .missingClaim)
        #expect(try Self.code(ExpiryRule(required: false), [:]) == nil)
        for hostile: JSONValue in [
            -1, .double(-1e300), .double(1e300), .double(-9.3e18), .integer(.max), .double(9_007_199_254_740_994), "1700000600", true,
        ] {
            #expect(try Self.code(ExpiryRule(), ["exp": hostile]) == .invalidClaim, "\(hostile)")
        }
    }

    @Test func issuedAt() throws {
        #expect(try Self.code(IssuedAtRule(), ["iat": .double(Self.now + 30)]) == nil)
        #expect(try Self.code(IssuedAtRule(), ["iat": .double(Self.now + 61)]) == .issuedInFuture)
        #expect(try Self.code(IssuedAtRule(), [:]) == .missingClaim)
        #expect(try Self.code(IssuedAtRule(required: false), [:]) == nil)
        #expect(try Self.code(IssuedAtRule(), ["iat": .integer(.max)]) == .invalidClaim)
    }

    @Test func notBefore() throws {
        #expect(try Self.code(NotBeforeRule(), [:]) == nil)
        #expect(try Self.code(NotBeforeRule(), ["nbf": .double(Self.now + 61)]) == .notYetValid)
        #expect(try Self.code(NotBeforeRule(), ["nbf": .double(1e300)]) == .invalidClaim)
    }

    @Test func nonce() throws {
        #expect(try Self.code(NonceRule(expected: "n-\u{212A}"), ["nonce": "n-\u{212A}"]) == nil)
        #expect(try Self.code(NonceRule(expected: "n-K"), ["nonce": "n-\u{212A}"]) == .nonceMismatch)
        #expect(try Self.code(NonceRule(expected: "n"), [:]) == .nonceMismatch)
        #expect(try Self.code(NonceRule(expected: "n"), ["nonce": 1]) == .invalidClaim)
    }

    @Test func authTime() throws {
        #expect(try Self.code(AuthTimeRule(), [:]) == nil)
        #expect(try Self.code(AuthTimeRule(required: true), [:]) == .missingClaim)
        #expect(try Self.code(AuthTimeRule(maximumAge: .seconds(300)), [:]) == .missingClaim)
        #expect(try Self.code(AuthTimeRule(maximumAge: .seconds(300)), ["auth_time": .double(Self.now - 100)]) == nil)
        #expect(try Self.code(AuthTimeRule(maximumAge: .seconds(300)), ["auth_time": .double(Self.now - 400)]) == .authTooOld)
        #expect(try Self.code(AuthTimeRule(), ["auth_time": .double(Self.now + 120)]) == .invalidClaim)
        #expect(try Self.code(AuthTimeRule(maximumAge: .seconds(300)), ["auth_time": .double(-1e300)]) == .invalidClaim)
    }

    @Test func tokenHashes() throws {
        let hash = Base64URL.encode(Array(SHA256.hash(data: Array("access-1".utf8))).prefix(16))
        #expect(try Self.code(TokenHashRule.accessToken("access-1"), ["at_hash": .string(hash)]) == nil)
        #expect(try Self.code(TokenHashRule.accessToken("access-2"), ["at_hash": .string(hash)]) == .atHashMismatch)
        #expect(try Self.code(TokenHashRule.authorizationCode("access-2"), ["c_hash": .string(hash)]) == .cHashMismatch)
        #expect(try Self.code(TokenHashRule.accessToken("access-2"), [:]) == nil)
    }

    @Test func requiredClaims() throws {
        #expect(try Self.code(RequiredClaimsRule(["auth_time"]), ["auth_time": 1]) == nil)
        #expect(try Self.code(RequiredClaimsRule(["auth_time"]), [:]) == .missingClaim)
    }

    @Test func nonEmptyString() throws {
        let rule = NonEmptyStringClaimRule("jti", code: .invalidSecurityEvent)
        #expect(try Self.code(rule, ["jti": "j"]) == nil)
        #expect(try Self.code(rule, ["jti": ""]) == .invalidSecurityEvent)
        #expect(try Self.code(rule, [:]) == .invalidSecurityEvent)
        #expect(try Self.code(rule, ["jti": 4]) == .invalidClaim)
    }

    @Test func maximumLifetime() throws {
        let rule = MaximumLifetimeRule(maximum: .seconds(300))
        #expect(try Self.code(rule, ["exp": .double(Self.now + 300)]) == nil)
        #expect(try Self.code(rule, ["exp": .double(Self.now + 301)]) == .invalidClaim)
        #expect(try Self.code(rule, ["iat": .double(Self.now - 100), "exp": .double(Self.now + 250)]) == .invalidClaim)
        #expect(try Self.code(rule, [:]) == .missingClaim)
    }

    @Test func events() throws {
        let logout = EventsRule(requiredMember: ClaimRules.backChannelLogoutEvent, code: .invalidLogoutToken)
        #expect(try Self.code(logout, ["events": [ClaimRules.backChannelLogoutEvent: [:]]]) == nil)
        #expect(try Self.code(logout, ["events": [ClaimRules.backChannelLogoutEvent: "yes"]]) == .invalidLogoutToken)
        #expect(try Self.code(logout, ["events": "{}"]) == .invalidLogoutToken)
        let any = EventsRule(code: .invalidSecurityEvent)
        #expect(try Self.code(any, ["events": ["x": [:]]]) == nil)
        #expect(try Self.code(any, ["events": [:]]) == .invalidSecurityEvent)
        #expect(try Self.code(any, [:]) == .invalidSecurityEvent)
    }

    @Test func subjectOrSession() throws {
        #expect(try Self.code(SubjectOrSessionRule(), ["sub": "u"]) == nil)
        #expect(try Self.code(SubjectOrSessionRule(), ["sid": "s"]) == nil)
        #expect(try Self.code(SubjectOrSessionRule(), ["sub": "", "sid": ""]) == .invalidLogoutToken)
        #expect(try Self.code(SubjectOrSessionRule(), [:]) == .invalidLogoutToken)
    }

    @Test func numericDateBounds() {
        #expect(NumericDate(secondsSince1970: 0) != nil && NumericDate(secondsSince1970: NumericDate.maximum) != nil)
        #expect(
            NumericDate(secondsSince1970: -0.5) == nil && NumericDate(secondsSince1970: .nan) == nil
                && NumericDate(secondsSince1970: .infinity) == nil)
        #expect(NumericDate(secondsSince1970: NumericDate.maximum.nextUp) == nil)
        #expect(
            NumericDate(json: .integer(1 << 53)) != nil && NumericDate(json: .integer((1 << 53) + 1)) == nil
                && NumericDate(json: .integer(-1)) == nil)
        #expect(NumericDate(json: .double(1.5))?.wholeSeconds == 1)
        #expect(
            SafeNumber.int64(1e300) == nil && SafeNumber.int64(.nan) == nil && SafeNumber.clampedInt64(-1e300) == .min
                && SafeNumber.clampedInt64(.nan) == 0)
    }

    @Test func exactIdentifiers() {
        #expect("\u{212A}-client" == "K-client")  // what Swift's String equality says…
        #expect(!"\u{212A}-client".exactlyEquals("K-client"))  // …and what Federate compares
        let set: IdentifierSet = ["K-client", "a;"]
        #expect(set.contains("K-client") && set.contains("a;"))
        #expect(!set.contains("\u{212A}-client") && !set.contains("a\u{037E}"))
        #expect(Set([ExactString("K"), ExactString("\u{212A}")]).count == 2)
        #expect(IdentifierSet(["e\u{301}", "\u{E9}"]).count == 2)
    }
}
