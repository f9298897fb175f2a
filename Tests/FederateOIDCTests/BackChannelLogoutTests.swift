import Federate
@testable import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

@Suite("Back-channel logout tokens")
struct BackChannelLogoutTests {
    static let issuer = "https://op.example"
    static let clientID = "rp-1"
    static let key: JWSSigningKey = {
        do { return try TestIssuer.rsaKey(keyID: "rsa-1") } catch { fatalError("\(error)") }
    }()
    static let now = 1_800_000_000.0

    static var verifier: BackChannelLogoutVerifier {
        let keySet = (try? JSONWebKeySet(jwks: Array(TestIssuer.jwks(for: [key]).utf8))) ?? .empty
        return BackChannelLogoutVerifier(
            policy: IDTokenPolicy(issuers: [issuer], audiences: [clientID], allowedAlgorithms: [.rs256]), keys: keySet,
            clock: .fixed(at: Date(timeIntervalSince1970: now)))
    }

    /// A logout token with the spec's claims; `change` replaces (or with `nil` removes) claims.
    static func token(_ change: [String: JSONValue?] = [:], key: JWSSigningKey = key, algorithm: JWSAlgorithm = .rs256) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(clientID), "iat": .integer(Int64(now) - 5), "exp": .integer(Int64(now) + 120),
            "jti": "logout-1", "sub": "user-1", "sid": "session-9",
            "events": [BackChannelLogoutVerifier.logoutEvent: [:]],
        ]
        for (name, value) in change {
            if let value { claims[name] = value } else { claims.removeValue(forKey: name) }
        }
        return try key.sign(claims: claims, algorithm: algorithm, header: ["typ": "logout+jwt"])
    }

    @Test func validTokenIsAcceptedWithSubjectAndSession() async throws {
        let logout = try await Self.verifier.verify(Self.token())
        #expect(logout.subject == "user-1")
        #expect(logout.sessionID == "session-9")
        #expect(logout.tokenID == "logout-1")
        #expect(try await Self.verifier.verify(Self.token(["sub": nil])).sessionID == "session-9")
        #expect(try await Self.verifier.verify(Self.token(["sid": nil])).subject == "user-1")
    }

    @Test(
        arguments: [
            (["aud": JSONValue.string("another-rp")], FederateError.Code.audienceMismatch),
            (["iss": "https://evil.example"], .issuerMismatch),
            (["events": nil], .invalidLogoutToken),
            (["events": ["http://schemas.openid.net/event/other": [:]]], .invalidLogoutToken),
            (["events": [BackChannelLogoutVerifier.logoutEvent: "yes"]], .invalidLogoutToken),
            (["nonce": "n-1"], .invalidLogoutToken),
            (["sub": nil, "sid": nil], .invalidLogoutToken),
            (["jti": nil], .invalidLogoutToken),
            (["iat": nil], .missingClaim),
            (["iat": .integer(Int64(now) + 3600)], .issuedInFuture),
            (["exp": .integer(Int64(now) - 3600)], .tokenExpired),
        ] as [([String: JSONValue?], FederateError.Code)])
    func specViolationsAreRefused(change: [String: JSONValue?], code: FederateError.Code) async throws {
        let error = await #expect(throws: FederateError.self) { try await Self.verifier.verify(Self.token(change)) }
        #expect(error?.code == code)
    }

    @Test func wrongAlgorithmsAndKeysAreRefused() async throws {
        let hmac = try Self.token(key: JWSSigningKey(hmac: HMACSecret(utf8: String(repeating: "s", count: 32))), algorithm: .hs256)
        let hmacError = await #expect(throws: FederateError.self) { try await Self.verifier.verify(hmac) }
        #expect(hmacError?.code == .disallowedAlgorithm)

        let parts = try Self.token().split(separator: ".")
        let none = Base64URL.encode(#"{"alg":"none"}"#) + "." + parts[1] + "."
        await #expect(throws: FederateError.self) { try await Self.verifier.verify(none) }

        let stranger = try Self.token(key: JWSSigningKey.generateRSA(keyID: "rsa-1"))
        let forged = await #expect(throws: FederateError.self) { try await Self.verifier.verify(stranger) }
        #expect(forged?.code == .invalidSignature)
    }

    @Test func handlerAnswers200NoStoreOr400() async throws {
        let ok = await Self.verifier.handle(formBody: Array(("logout_token=" + (try Self.token())).utf8))
        #expect(ok.status == 200)
        #expect(ok.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
        #expect(ok.body.isEmpty)
        #expect(ok.logoutToken?.subject == "user-1")

        for body in ["logout_token=" + (try Self.token(["nonce": "x"])), "other=1", "logout_token=a.b.c"] {
            let refused = await Self.verifier.handle(formBody: Array(body.utf8))
            #expect(refused.status == 400)
            #expect(refused.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
            #expect(String(decoding: refused.body, as: UTF8.self).contains("invalid_request"))
            #expect(refused.logoutToken == nil)
        }
    }
}

@Suite("OIDC provider configuration and logout URL")
struct OIDCProviderTests {
    @Test(arguments: ["oidc.example", "oidc.a", "oidc.my-idp_2.prod"])
    func validIDs(id: String) throws {
        #expect(OIDCProvider.isValidID(id))
        _ = try OIDCProvider(id: id, issuer: "https://op.example", clientID: "c", cache: ProviderCache(httpClient: PatientTransport.shared))
    }

    @Test(arguments: ["google.com", "oidc.", "oidc", "saml.x", "oidc.a b", "oidc." + String(repeating: "x", count: 65)])
    func invalidIDs(id: String) {
        #expect(!OIDCProvider.isValidID(id))
        #expect(throws: FederateError.self) {
            try OIDCProvider(id: id, issuer: "https://op.example", clientID: "c", cache: ProviderCache(httpClient: PatientTransport.shared))
        }
    }

    @Test func logoutURLCarriesHintRedirectAndState() throws {
        let metadata = try ProviderMetadata(
            members: [
                "issuer": "https://op.example", "authorization_endpoint": "https://op.example/authorize",
                "token_endpoint": "https://op.example/token", "jwks_uri": "https://op.example/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "end_session_endpoint": "https://op.example/logout?x=1",
            ], expectedIssuer: "https://op.example")
        let url = try RPInitiatedLogout.url(
            metadata: metadata, clientID: "c 1", idTokenHint: "h.t.s", postLogoutRedirectURI: "https://rp.example/bye", state: "s1")
        #expect(
            url
                == "https://op.example/logout?x=1&client_id=c+1&id_token_hint=h.t.s&post_logout_redirect_uri=https%3A%2F%2Frp.example%2Fbye&state=s1"
        )

        var members = metadata.document
        members.removeValue(forKey: "end_session_endpoint")
        let without = try ProviderMetadata(members: members, expectedIssuer: "https://op.example")
        let error = #expect(throws: FederateError.self) { try RPInitiatedLogout.url(metadata: without, clientID: "c") }
        #expect(error?.code == .endpointNotAvailable)
    }
}
