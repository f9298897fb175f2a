import Crypto
import FederateTestSupport
import Foundation
import Testing
import Federate
@testable import FederateRelyingParty
@testable import FederateTokens

/// Request objects (RFC 9101) and `client_secret_jwt` assertions, as sent, checked with the
/// provider-side claim rules.
@Suite("Request objects and client_secret_jwt")
struct RequestObjectAndSecretJWTTests {
    @Test func clientSecretJWTSendsAnHS256AssertionAndNeverTheSecret() async throws {
        try await ScriptedProvider.with { provider in
            let clock = TestClock()
            let client = try provider.client(.clientSecretJWT(secret: "s3cret value, at least 32 bytes long"), clock: clock.clock)
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
            _ = try await client.exchange(code: "c", pending: pending)
            let request = try #require(provider.requests(to: "/token").first)
            #expect(!request.bodyString.contains("s3cret") && request.header("Authorization") == nil)
            #expect(request.form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let assertion = try #require(request.form["client_assertion"])
            let verifier = JWTVerifier(
                rules: .clientAssertion(clientID: ScriptedProvider.clientID, audiences: [provider.tokenEndpoint]),
                allowedAlgorithms: [.hs256],
                keys: JSONWebKeySet.empty, hmacSecret: HMACSecret(utf8: "s3cret value, at least 32 bytes long"), clockTolerance: .zero,
                clock: clock.clock)
            let verified = try await verifier.verify(assertion)
            #expect(verified.algorithm == .hs256)
            let wrongKey = JWTVerifier(
                rules: .clientAssertion(clientID: ScriptedProvider.clientID, audiences: [provider.tokenEndpoint]),
                allowedAlgorithms: [.hs256],
                keys: JSONWebKeySet.empty, hmacSecret: HMACSecret(utf8: "another secret, also 32 bytes long"), clockTolerance: .zero,
                clock: clock.clock)
            await #expect(throws: FederateError.self) { try await wrongKey.verify(assertion) }
            #expect(
                client.authentication.methodName == "client_secret_jwt"
                    && client.authentication.clientSecret == "s3cret value, at least 32 bytes long")
            #expect(!"\(client.authentication)".contains("s3cret"))
        }
    }

    @Test func clientSecretJWTRefusesASecretTooShortForHS256() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(.clientSecretJWT(secret: "31 bytes, one short of HS256 !!"), clock: TestClock().clock)
            let pending = try await provider.pending(for: client)
            let refused = await #expect(throws: FederateError.self) { _ = try await client.exchange(code: "c", pending: pending) }
            #expect(refused?.code == .invalidConfiguration)
            #expect(provider.requests(to: "/token").isEmpty)
        }
    }

    @Test func negotiationFallsBackToClientSecretJWT() async throws {
        try await ScriptedProvider.with { provider in
            let only = try provider.metadata(["token_endpoint_auth_methods_supported": ["client_secret_jwt", "private_key_jwt"]])
            #expect(try ClientAuthentication.negotiate(metadata: only, secret: "s").methodName == "client_secret_jwt")
            let none = try provider.metadata(["token_endpoint_auth_methods_supported": ["private_key_jwt"]])
            #expect(throws: FederateError.self) { try ClientAuthentication.negotiate(metadata: none, secret: "s") }
        }
    }

    @Test func aRequestObjectCarriesTheParametersAndPassesTheProviderRules() async throws {
        try await ScriptedProvider.with { provider in
            let clock = TestClock()
            let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "k1")
            let client = try provider.client(.privateKeyJWT(key: key, algorithm: .es256), clock: clock.clock)
            let signing = try #require(RequestObjectSigning.matching(client.authentication))
            let built = try await client.authorizationRequest(
                providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback",
                delivery: AuthorizationDelivery(requestObject: signing),
                maxAge: .seconds(300))
            let query = try FormURLEncoding.decode(try #require(URLComponents(string: built.url)?.percentEncodedQuery))
            #expect(Set(query.keys) == ["client_id", "response_type", "scope", "request"])
            let keys = try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(try #require(key.publicJWK(algorithm: .es256)))]]))
            let verifier = JWTVerifier(
                rules: .requestObject(clientID: ScriptedProvider.clientID, audiences: [provider.issuer]), allowedAlgorithms: [.es256],
                keys: keys,
                clockTolerance: .zero, clock: clock.clock)
            let verified = try await verifier.verify(try #require(query["request"]))
            #expect(verified.claims["state"] == .string(built.pending.state) && verified.claims["max_age"] == 300)
            #expect(verified.claims["code_challenge_method"] == "S256" && verified.claims["redirect_uri"] == "http://127.0.0.1:9/callback")
            // Another audience, or the same claims as a plain JWT, are refused.
            let elsewhere = JWTVerifier(
                rules: .requestObject(clientID: ScriptedProvider.clientID, audiences: ["https://other.example"]),
                allowedAlgorithms: [.es256],
                keys: keys, clockTolerance: .zero, clock: clock.clock)
            await #expect(throws: FederateError.self) { try await elsewhere.verify(try #require(query["request"])) }
            let plain = try key.sign(claims: verified.claims.dictionary, algorithm: .es256)
            let untyped = await #expect(throws: FederateError.self) { try await verifier.verify(plain) }
            #expect(untyped?.code == .tokenTypeMismatch)
            // It expires after its lifetime.
            clock.advance(by: .seconds(61))
            let late = await #expect(throws: FederateError.self) { try await verifier.verify(try #require(query["request"])) }
            #expect(late?.code == .tokenExpired)
        }
    }

    @Test func anAlgorithmTheProviderDoesNotListIsRefusedBeforeSending() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(metadata: ["request_object_signing_alg_values_supported": ["RS256"]])
            let signing = try #require(RequestObjectSigning.matching(client.authentication))
            let refused = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(
                    providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback",
                    delivery: AuthorizationDelivery(requestObject: signing))
            }
            #expect(refused?.code == .invalidConfiguration)
            #expect(RequestObjectSigning.matching(.none) == nil)
            #expect(throws: FederateError.self) {
                try RequestObjectSigning(key: JWSSigningKey(hmac: HMACSecret(utf8: "k")), algorithm: .es256)
            }
            #expect(throws: FederateError.self) {
                try RequestObjectSigning(key: JWSSigningKey(hmac: HMACSecret(utf8: "k")), algorithm: .hs256, lifetime: .seconds(3600))
            }
        }
    }
}
