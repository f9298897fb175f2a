import Foundation
import Testing
import Federate
@testable import FederateTokens

/// RFC 9068 access tokens through the one pipeline: the RFC's own example, `typ` confusion
/// both ways, each required claim, and hostile scopes, times and confirmations.
@Suite struct AccessTokenTests {
    // RFC 9068 §2.2 / Appendix A's example (issued 2021-04-13, expires 2021-12-15).
    static let issuer = "https://authorization-server.example.com/"
    static let resource = "https://rs.example.com/"
    static let now: Double = 1_620_000_000
    static let example: [String: JSONValue] = [
        "iss": .string(issuer), "sub": "5ba552d67", "aud": .string(resource), "exp": 1_639_528_912, "iat": 1_618_354_090,
        "jti": "dbe39bf3a3ba4238a513f51d6e1691c4", "client_id": "s6BhdRkqt3", "scope": "openid profile reademail",
    ]
    static let atHeader: [String: JSONValue] = ["typ": "at+jwt", "kid": "rsa-1"]
    static let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: now))
    static let verifier = AccessTokenVerifier(
        policy: AccessTokenPolicy(issuer: issuer, resource: resource), keys: Fixtures.keySet, clock: clock)

    static func sign(_ changes: [String: JSONValue] = [:], header: [String: JSONValue] = atHeader) -> String {
        var claims = example
        for (name, value) in changes {
            if case .null = value { claims[name] = nil } else { claims[name] = value }
        }
        return try! Fixtures.rsa.sign(claims: claims, algorithm: .rs256, header: header)
    }

    static func code(_ changes: [String: JSONValue] = [:], header: [String: JSONValue] = atHeader) async -> FederateError.Code? {
        do {
            _ = try await verifier.verify(sign(changes, header: header))
            return nil
        } catch {
            return error.code
        }
    }

    @Test func theRFCExampleVerifiesWithTypedClaims() async throws {
        let verified = try await Self.verifier.verify(Self.sign())
        let token = try #require(verified.accessToken)
        #expect(token.subject == "5ba552d67" && token.clientID == "s6BhdRkqt3" && token.issuer == Self.issuer)
        #expect(token.jwtID == "dbe39bf3a3ba4238a513f51d6e1691c4" && token.audiences == [Self.resource])
        #expect(
            token.scopes.values == ["openid", "profile", "reademail"] && token.scopes.contains("reademail")
                && !token.scopes.contains("READEMAIL"))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_639_528_912) && token.confirmation == nil && token.authTime == nil)
        let caller = VerifiedToken(accessToken: token, providerID: "oidc.as")
        #expect(caller.kind == .accessToken && caller.subject == "5ba552d67" && caller.clientID == "s6BhdRkqt3" && caller.idToken == nil)
    }

    @Test func typMustNameAnAccessToken() async {
        #expect(await Self.code(header: ["typ": "application/at+jwt"]) == nil)
        #expect(await Self.code(header: ["typ": "AT+JWT"]) == nil)
        for header: [String: JSONValue] in [
            [:], ["typ": "JWT"], ["typ": "at+jwt "], ["typ": "logout+jwt"], ["typ": "application/jwt"], ["typ": 1],
        ] {
            #expect(await Self.code(header: header) != nil, "\(header)")
        }
        #expect(await Self.code(header: ["typ": "JWT"]) == .tokenTypeMismatch)
    }

    @Test func anIDTokenIsNeverAnAccessTokenAndViceVersa() async throws {
        // The same claims, plus what an ID token has, signed as an ID token: refused as an access token.
        let idToken = Self.sign(["aud": .string(Self.resource), "nonce": "n"], header: ["typ": "JWT"])
        await #expect(throws: FederateError.self) { try await Self.verifier.verify(idToken) }
        // An access token whose claims would pass the ID-token rules: refused by them.
        let idVerifier = IDTokenVerifier(
            policy: IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.resource]), keys: Fixtures.keySet, clock: Self.clock)
        let error = await #expect(throws: FederateError.self) { try await idVerifier.verify(Self.sign()) }
        #expect(error?.code == .tokenTypeMismatch)
    }

    @Test func requiredClaims() async {
        for name in ["iss", "sub", "aud", "exp", "iat", "client_id", "jti"] {
            #expect(await Self.code([name: .null]) == .missingClaim, "\(name)")
        }
        #expect(await Self.code(["client_id": ""]) == .missingClaim)
        #expect(await Self.code(["jti": 7]) == .invalidClaim)
        #expect(await Self.code(["scope": .null]) == nil)
        #expect(await Self.code(["aud": "https://rs.example.com"]) == .audienceMismatch)  // no trailing slash: another resource
        #expect(await Self.code(["aud": ["https://other.example/", .string(Self.resource)]]) == nil)
        #expect(await Self.code(["iss": "https://authorization-server.example.com"]) == .issuerMismatch)
        #expect(await Self.code(["acr": "urn:mace:incommon:iap:silver", "auth_time": 1_618_354_000]) == nil)
        #expect(await Self.code(["acr": 2]) == .invalidClaim)
        #expect(await Self.code(["auth_time": .double(Self.now + 3600)]) == .invalidClaim)
        #expect(await Self.code(["events": [:]]) == .tokenTypeMismatch)
    }

    @Test func hostileScopes() async {
        for scope in [
            "read\twrite", "read  write", " read", "read ", "read\nwrite", "r\u{E9}ad", "read\u{00A0}write", "r\"ead", "re\\ad",
            "\u{FF52}ead", "read\u{0301}", "read\u{200B}", String(repeating: "s ", count: 300) + "s",
        ] {
            #expect(await Self.code(["scope": .string(scope)]) == .invalidClaim, "\(scope.debugDescription.prefix(40))")
        }
        #expect(await Self.code(["scope": ["read", "write"]]) == .invalidClaim)
        #expect(await Self.code(["scope": ""]) == nil)
        let many = (0..<OAuthScopes.maximumCount).map { "s\($0)" }.joined(separator: " ")
        #expect(await Self.code(["scope": .string(many)]) == nil)
        #expect(await Self.code(["scope": .string(many + " one-more")]) == .invalidClaim)
    }

    @Test func timeExtremes() async {
        #expect(await Self.code(["exp": 9_007_199_254_740_992]) == nil)  // 2^53: far, still a NumericDate
        #expect(await Self.code(["exp": 9_007_199_254_740_993]) == .invalidClaim)
        for value: JSONValue in [.double(1e300), -1, .double(-0.5), "1639528912", [1]] {
            #expect(await Self.code(["exp": value]) != nil, "\(value)")
        }
        #expect(await Self.code(["exp": .double(Self.now - 61)]) == .tokenExpired)
        #expect(await Self.code(["exp": .double(Self.now - 59)]) == nil)  // within the 60 s tolerance
        #expect(await Self.code(["iat": .double(Self.now + 61)]) == .issuedInFuture)
        #expect(await Self.code(["nbf": .double(Self.now + 61)]) == .notYetValid)
    }

    @Test func confirmationIsTypedAndChecked() async throws {
        let thumbprint = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let token = try #require(try await Self.verifier.verify(Self.sign(["cnf": ["jkt": .string(thumbprint)]])).accessToken)
        #expect(token.confirmation?.jkt == thumbprint)
        #expect(VerifiedToken(accessToken: token, providerID: nil).confirmation?.jkt == thumbprint)
        // Only `cnf.jkt` alone can be checked (by DPoP); any other binding, or a malformed one, refuses the token.
        for cnf: JSONValue in [
            "jkt", ["jkt": "short"], ["jkt": .string(thumbprint + "A")], ["jkt": 5],
            ["jkt": .string(thumbprint.replacingOccurrences(of: "B", with: "+"))],
            ["x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"], ["jwk": ["kty": "EC"]], ["kid": "k"], ["jku": "https://x"], [:],
            ["future-method": "x"], ["jkt": .string(thumbprint), "x5t#S256": "abc"], 7, ["a", "b"],
        ] {
            #expect(await Self.code(["cnf": cnf]) == .tokenBindingMismatch, "\(cnf)")
        }
    }

    @Test func scopesParseStrictlyAndCompareByteForByte() async throws {
        let scopes = try OAuthScopes(parsing: "b a b c")
        #expect(scopes.values == ["b", "a", "c"])
        #expect(scopes.isSuperset(of: ["a", "c"]) && !scopes.isSuperset(of: ["a", "d"]))
        #expect(scopes.missing(from: ["d", "a", "e"]) == ["d", "e"])
        #expect(try OAuthScopes(parsing: "").isEmpty)
        #expect(try OAuthScopes(parsing: "!#[]~").values == ["!#[]~"])
        #expect(throws: FederateError.self) { try OAuthScopes(parsing: " ") }
    }

    @Test func theRouterSendsEachKindToItsOwnVerifier() async throws {
        let idVerifier = IDTokenBearerVerifier(
            providerID: "oidc.as",
            verifier: IDTokenVerifier(
                policy: IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.resource]), keys: Fixtures.keySet, clock: Self.clock))
        let accessToken = Self.sign()
        let idToken = Self.sign(["client_id": .null, "jti": .null, "scope": .null], header: ["typ": "JWT"])
        let both = CallerTokenRouter(idTokens: idVerifier, accessTokens: Self.verifier)
        #expect(try await both.verify(accessToken).kind == .accessToken)
        let viaID = try await both.verify(idToken)
        #expect(viaID.kind == .idToken && viaID.idToken?.subject == "5ba552d67" && viaID.scopes.isEmpty)
        func shape(_ token: String) -> CallerTokenRouter.Shape {
            CallerTokenRouter.shape(of: CallerTokenRouter.readHeader(token, headers: JOSEHeaderCache()))
        }
        #expect(shape(Base64URL.encode(#"{"alg":"RS256"}"#) + ".YmFy.YmF6") == .otherJWS)
        #expect(shape("Zm9v.YmFy.YmF6") == .opaque)  // a header that is not JSON
        #expect(shape("opaque-token") == .opaque)
        #expect(shape("a.b.c.d.e") == .opaque)
        for (router, token) in [
            (CallerTokenRouter(idTokens: idVerifier), accessToken), (CallerTokenRouter(accessTokens: Self.verifier), idToken),
            (both, "opaque-token"),
        ] {
            let error = await #expect(throws: FederateError.self) { try await router.verify(token) }
            #expect(error?.code == .tokenTypeMismatch)
        }
    }
}
