import Foundation
import Testing
import Federate
@testable import FederateTokens

/// The token model end to end: a claim is one member however its name is spelled, the
/// caches of a verifier key on exact bytes, and the typed readers agree with the claims.
@Suite struct TokenModelTests {
    /// `token` with its header segment's first `K` written as U+212A KELVIN SIGN, which Swift's
    /// `String` equality takes for `K`.
    static func withKelvinInHeader(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let k = parts[0].firstIndex(of: "K") else { return nil }
        var header = parts[0]
        header.replaceSubrange(k...k, with: "\u{212A}")
        return ([header] + parts.dropFirst()).joined(separator: ".")
    }

    @Test func aClaimSpelledWithEscapesIsThatClaim() async throws {
        func signed(_ payload: String) throws -> String {
            try Fixtures.rsa.sign(payload: Array(payload.utf8), algorithm: .rs256, header: ["typ": "JWT"])
        }
        let now = Int64(Fixtures.now)
        // Twice, once escaped: two `iss`, refused like any duplicate.
        let twice = try signed(
            #"{"iss":"\#(Fixtures.issuer)","\u0069ss":"https://evil.example","sub":"u","aud":"\#(Fixtures.clientID)","iat":\#(now),"exp":\#(now + 600)}"#
        )
        #expect(await Fixtures.errorCode(twice) == .malformedToken)
        // Once, escaped: read as `iss` by the rules and by the typed readers.
        let escaped = try signed(
            #"{"\u0069ss":"\#(Fixtures.issuer)","s\u0075b":"u\u00e9","aud":"\#(Fixtures.clientID)","iat":\#(now),"exp":\#(now + 600)}"#)
        #expect(await Fixtures.errorCode(escaped) == nil)
        let token = try await IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet).verify(escaped)
        #expect(token.issuer == Fixtures.issuer && token.subject == "ué" && token["iss"] == .string(Fixtures.issuer))
        let elsewhere = try signed(
            #"{"\u0069ss":"https://evil.example","sub":"u","aud":"\#(Fixtures.clientID)","iat":\#(now),"exp":\#(now + 600)}"#)
        #expect(await Fixtures.errorCode(elsewhere) == .issuerMismatch)
    }

    @Test func theHeaderCacheKeysOnExactBytes() async throws {
        let verifier = JWTVerifier(
            issuers: [Fixtures.issuer], audiences: [Fixtures.clientID], allowedAlgorithms: [.rs256], keys: Fixtures.keySet)
        // A header whose segment has a `K`.
        let token = try #require(
            (0..<200).lazy.map { Fixtures.token(header: ["typ": "JWT", "n": .integer(Int64($0))]) }.first {
                Self.withKelvinInHeader($0) != nil
            })
        _ = try await verifier.verify(token)  // remembered
        let lookalike = try #require(Self.withKelvinInHeader(token))
        #expect(
            !lookalike.utf8.elementsEqual(token.utf8) && lookalike == token, "other bytes, which Swift's String equality takes for the same"
        )
        let refused = await #expect(throws: FederateError.self) { try await verifier.verify(lookalike) }
        #expect(refused?.code == .malformedToken, "not base64url: never the remembered header")
    }

    @Test func theDPoPKeyCacheKeysOnExactBytes() async throws {
        let verifier = DPoPProofVerifier(clock: .fixed(at: DPoPProofTests.rfcIssuedAt))
        let uri = "https://server.example.com/token"
        _ = try verifier.verify(DPoPProofTests.rfcProof, method: "POST", uri: uri)  // its key imported and remembered
        let lookalike = try #require(Self.withKelvinInHeader(DPoPProofTests.rfcProof))
        let refused = #expect(throws: FederateError.self) { try verifier.verify(lookalike, method: "POST", uri: uri) }
        #expect(refused?.code == .malformedToken)
    }

    @Test func aDPoPTargetIsComparedAsBytes() async throws {
        let key = DPoPKey.generateES256()
        let lookalike = "https://server.example.com/\u{212A}"
        #expect(HTTPTargetURI(lookalike) != HTTPTargetURI("https://server.example.com/K"))
        let proof = try key.proof(method: "GET", uri: lookalike, issuedAt: DPoPProofTests.now)
        let refused = #expect(throws: FederateError.self) {
            try DPoPProofTests.verifier().verify(proof, method: "GET", uri: "https://server.example.com/K")
        }
        #expect(refused?.code == .invalidDPoPProof)
        _ = try DPoPProofTests.verifier().verify(proof, method: "GET", uri: lookalike)
    }

    @Test func typedReadersAgreeWithTheClaims() async throws {
        let now = Int64(Fixtures.now)
        let token = try await IDTokenVerifier(policy: Fixtures.policy(), keys: Fixtures.keySet).verify(
            Fixtures.token([
                // Pinned: the fixture's own `iat` and `exp` read the clock again, a second later at times.
                "iat": .integer(now), "exp": .integer(now + 600),
                "aud": [.string(Fixtures.clientID), "other"], "azp": .string(Fixtures.clientID), "nbf": .integer(now - 5),
                "auth_time": .double(Double(now) - 60.5),
                "nonce": "n", "sid": "s-1", "email": "a@example.com", "email_verified": true, "name": "A", "picture": "https://p",
                "acr": "phr",
                "amr": ["hwk"], "tid": "t",
            ]))
        #expect(token.audiences == [Fixtures.clientID, "other"] && token.authorizedParty == Fixtures.clientID)
        #expect(
            token.expiresAt == Date(timeIntervalSince1970: Double(now + 600)) && token.issuedAt == Date(timeIntervalSince1970: Double(now)))
        #expect(
            token.notBefore == Date(timeIntervalSince1970: Double(now - 5))
                && token.authTime == Date(timeIntervalSince1970: Double(now) - 60.5))
        #expect(token.nonce == "n" && token.sessionID == "s-1" && token.email == "a@example.com" && token.emailVerified == true)
        #expect(token.name == "A" && token.picture == "https://p" && token.acr == "phr" && token.authenticationLevel?.amr == ["hwk"])
        #expect(token["tid"] == "t" && token.claims.count == 17)
        #expect(
            token.claims.dictionary
                == Fixtures.claims([
                    // Pinned: the fixture's own `iat` and `exp` read the clock again, a second later at times.
                    "iat": .integer(now), "exp": .integer(now + 600),
                    "aud": [.string(Fixtures.clientID), "other"], "azp": .string(Fixtures.clientID), "nbf": .integer(now - 5),
                    "auth_time": .double(Double(now) - 60.5),
                    "nonce": "n", "sid": "s-1", "email": "a@example.com", "email_verified": true, "name": "A", "picture": "https://p",
                    "acr": "phr",
                    "amr": ["hwk"], "tid": "t",
                ]))
    }
}
