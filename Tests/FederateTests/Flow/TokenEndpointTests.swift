import Crypto
import FederateTestSupport
import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// The code exchange, client authentication and token-response validation, against a
/// scripted provider on a real loopback HTTP server.
@Suite("Token endpoint")
struct TokenEndpointTests {
    @Test func exchangeSendsCodeVerifierRedirectAndFormEncodedBasicCredentials() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))

            let tokens = try await client.exchange(code: "the-code", pending: pending)

            let request = try #require(provider.requests(to: "/token").first)
            #expect(request.method == "POST")
            #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(
                request.form == [
                    "grant_type": "authorization_code", "code": "the-code", "redirect_uri": "http://127.0.0.1:9/callback",
                    "code_verifier": pending.codeVerifier,
                ])
            // RFC 6749 §2.3.1: form-encode the ID and secret, then base64 "id:secret".
            let expected = Data("client%3A1+%C3%A9:p%40ss+word".utf8).base64EncodedString()
            #expect(request.header("Authorization") == "Basic " + expected)

            #expect(tokens.accessToken == "access-1")
            #expect(tokens.refreshToken == "refresh-1")
            #expect(tokens.idTokenClaims?.subject == "user-1")
            let expiresIn = try #require(tokens.expiresAt).timeIntervalSinceNow
            #expect(expiresIn > 3590 && expiresIn <= 3600)
            #expect(!"\(tokens)".contains("access-1"))
        }
    }

    @Test func clientSecretPostPutsCredentialsInTheForm() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(.clientSecretPost(secret: "s3cret"))
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
            _ = try await client.exchange(code: "c", pending: pending)
            let request = try #require(provider.requests(to: "/token").first)
            #expect(request.form["client_id"] == ScriptedProvider.clientID)
            #expect(request.form["client_secret"] == "s3cret")
            #expect(request.header("Authorization") == nil)
        }
    }

    @Test func publicClientSendsOnlyItsID() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(.none)
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
            _ = try await client.exchange(code: "c", pending: pending)
            let request = try #require(provider.requests(to: "/token").first)
            #expect(request.form["client_id"] == ScriptedProvider.clientID)
            #expect(request.form["client_secret"] == nil)
            #expect(request.header("Authorization") == nil)
        }
    }

    @Test(arguments: [JWSAlgorithm.rs256, .es256])
    func privateKeyJWTAssertionIsShortLivedSingleUseAndForTheTokenEndpoint(algorithm: JWSAlgorithm) async throws {
        try await ScriptedProvider.with { provider in
            let signingKey =
                algorithm == .rs256
                ? try TestIssuer.rsaKey(keyID: "client-key")
                : JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "client-key")
            let client = try provider.client(.privateKeyJWT(key: signingKey, algorithm: algorithm))
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
            _ = try await client.exchange(code: "c", pending: pending)
            _ = try await client.exchange(code: "c2", pending: pending)

            let forms = provider.requests(to: "/token").map(\.form)
            #expect(forms.count == 2)
            #expect(forms[0]["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let keySet = try JSONWebKeySet(jwks: Array(TestIssuer.jwks(for: [signingKey]).utf8))
            var jtis: Set<String> = []
            for form in forms {
                let jws = try CompactJWS(parsing: try #require(form["client_assertion"]))
                let verified = try JWSSignatureVerifier(allowedAlgorithms: [algorithm]).verify(jws, keySet: keySet)
                #expect(verified.algorithm == algorithm)
                let claims = try JSONParser().parseObject(jws.payload)
                #expect(claims["iss"] == .string(ScriptedProvider.clientID))
                #expect(claims["sub"] == .string(ScriptedProvider.clientID))
                #expect(claims["aud"] == .string(provider.tokenEndpoint))
                let lifetime = try #require(claims["exp"]?.int64Value) - (try #require(claims["iat"]?.int64Value))
                #expect(lifetime > 0 && lifetime <= 300)
                jtis.insert(try #require(claims["jti"]?.stringValue))
                #expect(form["client_secret"] == nil)
            }
            #expect(jtis.count == 2)
        }
    }

    @Test func authMethodFollowsDiscovery() throws {
        let basicDefault = try FlowFixtures.metadata()
        #expect(try ClientAuthentication.negotiate(metadata: basicDefault, secret: "s").methodName == "client_secret_basic")
        let postOnly = try FlowFixtures.metadata(["token_endpoint_auth_methods_supported": ["client_secret_post"]])
        #expect(try ClientAuthentication.negotiate(metadata: postOnly, secret: "s").methodName == "client_secret_post")
        #expect(try ClientAuthentication.negotiate(metadata: postOnly, secret: nil).methodName == "none")
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "k")
        #expect(throws: FederateError.self) {
            try ClientAuthentication.negotiate(metadata: postOnly, secret: nil, privateKey: (key, .es256))
        }
        let jwtOnly = try FlowFixtures.metadata(["token_endpoint_auth_methods_supported": ["private_key_jwt"]])
        #expect(throws: FederateError.self) { try ClientAuthentication.negotiate(metadata: jwtOnly, secret: "s") }
        #expect(!"\(ClientAuthentication.clientSecretBasic(secret: "hidden"))".contains("hidden"))
    }

    @Test(arguments: ["bearer", "BEARER", "Bearer"])
    func bearerIsAcceptedInAnyCase(tokenType: String) async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce, extra: ["token_type": .string(tokenType)]))
            #expect(try await client.exchange(code: "c", pending: pending).tokenType == tokenType)
        }
    }

    @Test(
        arguments: [
            ["token_type": JSONValue.string("mac")], ["token_type": nil], ["access_token": nil], ["access_token": ""],
            ["id_token": nil], ["expires_in": -1], ["expires_in": "soon"], ["scope": 7], ["refresh_token": 1],
        ] as [[String: JSONValue?]])
    func malformedTokenResponsesAreRefused(change: [String: JSONValue?]) async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce, extra: change))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .invalidTokenResponse, "\(change): \(String(describing: error))")
        }
    }

    @Test func idTokenNonceMustMatch() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: "someone-elses-nonce"))
            let wrong = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(wrong?.code == .nonceMismatch)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: nil))
            let missing = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(missing?.code == .nonceMismatch || missing?.code == .missingClaim)
        }
    }

    @Test func atHashMustMatchTheAccessToken() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(
                try provider.tokenResponse(
                    nonce: pending.nonce, idTokenClaims: ["at_hash": .string(TokenHash.compute("other-token", algorithm: .rs256))]))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .atHashMismatch)
        }
    }

    @Test func maxAgeIsCheckedAgainstAuthTime() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client, maxAge: .seconds(60))
            let longAgo = Int64(Date().timeIntervalSince1970) - 3600
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce, idTokenClaims: ["auth_time": .integer(longAgo)]))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .authTooOld)
        }
    }

    @Test func idTokenSignedByAnotherKeyIsRefused() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            let stranger = try JWSSigningKey.generateRSA(keyID: "rsa-1")  // same kid, other key
            let now = Int64(Date().timeIntervalSince1970)
            let forged = try stranger.sign(
                claims: [
                    "iss": .string(provider.issuer), "sub": "user-1", "aud": .string(ScriptedProvider.clientID),
                    "iat": .integer(now), "exp": .integer(now + 600), "nonce": .string(pending.nonce),
                ], algorithm: .rs256)
            provider.tokenEndpointAnswers(
                .json(
                    JSONSerializer.string([
                        "access_token": "a", "token_type": "Bearer", "id_token": .string(forged),
                    ])))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .invalidSignature)
        }
    }

    @Test func grantedAndRefusedScopesAreReported() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce, extra: ["scope": "openid email"]))
            let tokens = try await client.exchange(code: "c", pending: pending)
            #expect(tokens.grantedScopes == ["openid", "email"])
            #expect(tokens.refusedScopes == ["profile"])

            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce, extra: ["scope": nil]))
            let all = try await client.exchange(code: "c", pending: pending)
            #expect(all.grantedScopes == pending.scopes)
            #expect(all.refusedScopes.isEmpty)
        }
    }

    @Test(arguments: [(400, "invalid_grant"), (401, "invalid_client"), (400, "unauthorized_client"), (400, "brand_new_error")])
    func oauthErrorsKeepTheProvidersCode(status: Int, code: String) async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(.json(#"{"error":"\#(code)","error_description":"details here"}"#, status: status))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code.rawValue == code)
            #expect(error?.providerError?.description == "details here")
        }
    }

    @Test func nonJSONErrorIsAnUnexpectedStatus() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(.text("<html>oops</html>", status: 502))
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .unexpectedStatus)
        }
    }

    @Test func failedCallbackNeverReachesTheTokenEndpoint() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let pending = try await provider.pending(for: client)
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: pending.nonce))
            let callbacks: [[String: String]] = [
                ["code": "c", "state": "forged"],
                ["code": "c"],
                ["error": "access_denied", "state": pending.state],
                ["code": "c", "state": pending.state, "iss": "https://evil.example"],
            ]
            for parameters in callbacks {
                await #expect(throws: FederateError.self) {
                    try await client.finish(AuthorizationResponse(parameters: parameters), pending: pending).tokens
                }
            }
            #expect(provider.requests(to: "/token").isEmpty)
            _ = try await client.finish(AuthorizationResponse(parameters: ["code": "c", "state": pending.state]), pending: pending).tokens
            #expect(provider.requests(to: "/token").count == 1)
        }
    }

    @Test func pendingOfAnotherClientIsRefused() async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client()
            let other = try OpenIDClient(
                metadata: provider.metadata(), clientID: "other-client", authentication: .none,
                keys: JSONWebKeySet(jwks: Array(TestIssuer.jwks(for: [provider.key]).utf8)), httpClient: PatientTransport.shared)
            let pending = try await provider.pending(for: other)
            let error = await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
            #expect(error?.code == .invalidPendingAuthorization)
            #expect(provider.requests(to: "/token").isEmpty)
        }
    }

    @Test func hmacSignedIDTokenVerifiesWithTheClientSecretOnly() async throws {
        try await ScriptedProvider.with { provider in
            let secret = String(repeating: "k", count: 32)
            let client = try provider.client(
                .clientSecretPost(secret: secret), metadata: ["id_token_signing_alg_values_supported": ["HS256"]])
            let pending = try await provider.pending(for: client)
            let now = Int64(Date().timeIntervalSince1970)
            let claims: [String: JSONValue] = [
                "iss": .string(provider.issuer), "sub": "user-1", "aud": .string(ScriptedProvider.clientID),
                "iat": .integer(now), "exp": .integer(now + 600), "nonce": .string(pending.nonce),
            ]
            let hmacToken = try JWSSigningKey(hmac: HMACSecret(utf8: secret)).sign(claims: claims, algorithm: .hs256)
            provider.tokenEndpointAnswers(
                .json(JSONSerializer.string(["access_token": "a", "token_type": "Bearer", "id_token": .string(hmacToken)])))
            #expect(try await client.exchange(code: "c", pending: pending).idTokenClaims?.algorithm == .hs256)

            let wrongSecret = try JWSSigningKey(hmac: HMACSecret(utf8: String(repeating: "x", count: 32))).sign(
                claims: claims, algorithm: .hs256)
            provider.tokenEndpointAnswers(
                .json(JSONSerializer.string(["access_token": "a", "token_type": "Bearer", "id_token": .string(wrongSecret)])))
            await #expect(throws: FederateError.self) { try await client.exchange(code: "c", pending: pending) }
        }
    }
}
