import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Every claim rule of IDTokenVerifier, each test failing if its rule is removed.
@Suite struct IDTokenClaimsTests {
    let now = Int64(Fixtures.now)

    @Test func acceptsAValidTokenAndTypesItsClaims() async throws {
        let token = Fixtures.token(["email": "a@example.com", "email_verified": true, "auth_time": .integer(now - 5), "nonce": "n-1"])
        let idToken = try await IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet).verify(
            token, expecting: .init(nonce: "n-1"))
        #expect(idToken.issuer == Fixtures.issuer && idToken.subject == "user-1" && idToken.audiences == [Fixtures.clientID])
        #expect(idToken.email == "a@example.com" && idToken.emailVerified == true)
        #expect(idToken.authTime != nil && idToken.nonce == "n-1" && idToken.algorithm == .rs256 && idToken.keyID == "rsa-1")
        #expect(idToken.claims["email"] == "a@example.com")
    }

    @Test func issuerMustBeAccepted() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["iss": "https://evil.example.com"])) == .issuerMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(["iss": "https://issuer.example.com/"])) == .issuerMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(["iss": .null])) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["iss": 5])) == .invalidClaim)
        let twoIssuers = Fixtures.policy { $0.issuers = ["accounts.google.com", Fixtures.issuer] }
        #expect(await Fixtures.errorCode(Fixtures.token(["iss": "accounts.google.com"]), policy: twoIssuers) == nil)
    }

    @Test func audienceMustContainTheClient() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": "other"])) == .audienceMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": ["other", "another"], "azp": "other"])) == .audienceMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": .null])) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": []])) == .invalidClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": [1]])) == .invalidClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": .array([.string(Fixtures.clientID)])])) == nil)
        let several = Fixtures.policy { $0.audiences = ["web", "android"] }
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": "android"]), policy: several) == nil)
    }

    @Test func azpRules() async {
        // Several audiences: azp required and must be the client.
        #expect(await Fixtures.errorCode(Fixtures.token(["aud": .array([.string(Fixtures.clientID), "other"])])) == .azpMismatch)
        #expect(
            await Fixtures.errorCode(Fixtures.token(["aud": .array([.string(Fixtures.clientID), "other"]), "azp": "other"])) == .azpMismatch
        )
        #expect(
            await Fixtures.errorCode(
                Fixtures.token(["aud": .array([.string(Fixtures.clientID), "other"]), "azp": .string(Fixtures.clientID)]))
                == nil)
        // A present azp must always be an accepted party, even with one audience.
        #expect(await Fixtures.errorCode(Fixtures.token(["azp": "someone-else"])) == .azpMismatch)
        // Google's Android case: azp is another client of the same project, allowed explicitly.
        let android = Fixtures.policy { $0.authorizedParties = ["android-client"] }
        #expect(await Fixtures.errorCode(Fixtures.token(["azp": "android-client"]), policy: android) == nil)
    }

    @Test func expiryIsRequiredNumericAndEnforcedWithTolerance() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["exp": .integer(now - 61)])) == .tokenExpired)
        #expect(await Fixtures.errorCode(Fixtures.token(["exp": .integer(now - 30)])) == nil)  // within 60 s tolerance
        #expect(
            await Fixtures.errorCode(Fixtures.token(["exp": .integer(now - 30)]), policy: Fixtures.policy { $0.clockTolerance = .zero })
                == .tokenExpired)
        #expect(await Fixtures.errorCode(Fixtures.token(["exp": .null])) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["exp": .string(String(now + 600))])) == .invalidClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["exp": .double(Double(now) + 600.5)])) == nil)
    }

    @Test func issuedAtIsRequiredAndNotInTheFuture() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["iat": .integer(now + 120)])) == .issuedInFuture)
        #expect(await Fixtures.errorCode(Fixtures.token(["iat": .integer(now + 30)])) == nil)
        #expect(await Fixtures.errorCode(Fixtures.token(["iat": .null])) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["iat": true])) == .invalidClaim)
    }

    @Test func notBeforeIsEnforced() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["nbf": .integer(now + 120)])) == .notYetValid)
        #expect(await Fixtures.errorCode(Fixtures.token(["nbf": .integer(now - 10)])) == nil)
        #expect(await Fixtures.errorCode(Fixtures.token(["nbf": "soon"])) == .invalidClaim)
    }

    @Test func evaluatesTimeAtAGivenInstant() async {
        let token = Fixtures.token(["iat": 1_000_000, "exp": 1_000_600])
        #expect(await Fixtures.errorCode(token) == .tokenExpired)
        #expect(await Fixtures.errorCode(token, clock: .fixed(at: Date(timeIntervalSince1970: 1_000_100))) == nil)
        #expect(await Fixtures.errorCode(token, clock: .fixed(at: Date(timeIntervalSince1970: 999_000))) == .issuedInFuture)
    }

    @Test func subjectIsRequiredNonEmptyString() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["sub": .null])) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["sub": ""])) == .invalidClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["sub": 42])) == .invalidClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["sub": .string(String(repeating: "x", count: 256))])) == .invalidClaim)
    }

    @Test func nonceIsComparedWhenExpected() async {
        let token = Fixtures.token(["nonce": "abc"])
        #expect(await Fixtures.errorCode(token, expecting: .init(nonce: "abc")) == nil)
        #expect(await Fixtures.errorCode(token, expecting: .init(nonce: "abd")) == .nonceMismatch)
        #expect(await Fixtures.errorCode(token, expecting: .init(nonce: "ab")) == .nonceMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(), expecting: .init(nonce: "abc")) == .nonceMismatch)
        #expect(await Fixtures.errorCode(Fixtures.token(["nonce": 1]), expecting: .init(nonce: "abc")) == .invalidClaim)
    }

    @Test func accessTokenAndCodeHashes() async {
        let accessToken = "ya29.access-token"
        let code = "4/auth-code"
        let atHash = TokenHash.compute(accessToken, algorithm: .rs256)
        let cHash = TokenHash.compute(code, algorithm: .rs256)
        let token = Fixtures.token(["at_hash": .string(atHash), "c_hash": .string(cHash)])
        #expect(await Fixtures.errorCode(token, expecting: .init(accessToken: accessToken, authorizationCode: code)) == nil)
        #expect(await Fixtures.errorCode(token, expecting: .init(accessToken: "other")) == .atHashMismatch)
        #expect(await Fixtures.errorCode(token, expecting: .init(authorizationCode: "other")) == .cHashMismatch)
        // ES384 uses SHA-384: an SHA-256 half-hash must not match.
        let es = Fixtures.token(["at_hash": .string(atHash)], key: Fixtures.ec, algorithm: .es256)
        #expect(await Fixtures.errorCode(es, expecting: .init(accessToken: accessToken)) == nil)
        // Known vector from OpenID Connect Core examples: at_hash of "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y" with RS256.
        #expect(TokenHash.compute("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256) == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test func maxAgeRequiresARecentAuthTime() async {
        #expect(await Fixtures.errorCode(Fixtures.token(["auth_time": .integer(now - 30)]), expecting: .init(maxAge: .seconds(300))) == nil)
        #expect(
            await Fixtures.errorCode(Fixtures.token(["auth_time": .integer(now - 1000)]), expecting: .init(maxAge: .seconds(300)))
                == .authTooOld)
        #expect(await Fixtures.errorCode(Fixtures.token(), expecting: .init(maxAge: .seconds(300))) == .missingClaim)
        #expect(
            await Fixtures.errorCode(
                Fixtures.token(["auth_time": .integer(now - 1000)]), policy: Fixtures.policy { $0.maxAge = .seconds(300) })
                == .authTooOld)
        #expect(await Fixtures.errorCode(Fixtures.token(["auth_time": .integer(now + 1000)])) == .invalidClaim)
    }

    @Test func requiredExtraClaims() async {
        let policy = Fixtures.policy { $0.requiredClaims = ["email"] }
        #expect(await Fixtures.errorCode(Fixtures.token(), policy: policy) == .missingClaim)
        #expect(await Fixtures.errorCode(Fixtures.token(["email": "a@b.c"]), policy: policy) == nil)
    }

    @Test func payloadMustBeAJSONObject() async throws {
        let notObject = try Fixtures.rsa.sign(payload: Array("[1,2]".utf8), algorithm: .rs256)
        #expect(await Fixtures.errorCode(notObject) == .malformedToken)
        let duplicate = try Fixtures.rsa.sign(payload: Array(#"{"sub":"a","sub":"b"}"#.utf8), algorithm: .rs256)
        #expect(await Fixtures.errorCode(duplicate) == .malformedToken)
    }

    @Test func emailVerifiedIsAJSONBooleanOnly() throws {
        // Strings are Apple's way, read by FederateApple (AppleClaims); the core reads the standard's Boolean.
        for (value, expected): (JSONValue, Bool?) in [
            (.bool(true), true), (.bool(false), false), (.string("true"), nil), (.integer(1), nil),
        ] {
            let header = try JOSEHeader(members: ["alg": .string("RS256")])
            let token = IDToken(VerifiedJWT(header: header, claims: ["email_verified": value], algorithm: .rs256, keyID: nil))
            #expect(token.emailVerified == expected, "\(value)")
        }
    }
}
