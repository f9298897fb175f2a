import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// The dev provider driven by Federate's own relying party over real HTTP on loopback.
@Suite("Dev provider")
struct DevProviderTests {
    static let redirectURI = "http://127.0.0.1:9/callback"

    /// Runs `body` with a provider started for `configuration`, and stops it afterwards.
    static func with<T>(_ configuration: DevProviderConfiguration = .standard, _ body: (DevProvider) async throws -> T) async throws -> T {
        try await Flavor.with(configuration, body)
    }

    static func client(_ provider: DevProvider, id: String = "dev-client", secret: String? = "dev-secret") async throws -> OpenIDClient {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        return try OpenIDClient(
            metadata: metadata, clientID: id,
            authentication: secret.map { ClientAuthentication.clientSecretBasic(secret: $0) } ?? ClientAuthentication.none,
            httpClient: PatientTransport.shared)
    }

    /// Follows the authorization URL (auto-approve) to the redirect and returns the callback.
    static func authorize(_ url: String) async throws -> AuthorizationResponse {
        let response = try await PatientTransport.shared.send(HTTPRequest(url: url))
        #expect(response.status == 302, "\(String(decoding: response.body, as: UTF8.self))")
        let location = try #require(response.header("Location"))
        return try AuthorizationResponse(redirectURL: location)
    }

    static func signIn(_ provider: DevProvider, client: OpenIDClient) async throws -> TokenSet {
        let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: redirectURI)
        return try await client.finish(try await authorize(built.url), pending: built.pending).tokens
    }

    @Test func fullFlowWithUserinfoRefreshAndRevocation() async throws {
        try await Self.with { provider in
            let client = try await Self.client(provider)
            let tokens = try await Self.signIn(provider, client: client)
            #expect(tokens.idTokenClaims?.subject == "alice")
            #expect(tokens.idTokenClaims?.email == "alice@example.com")
            let info = try await client.userInfo(accessToken: tokens.accessToken, expectedSubject: "alice")
            #expect(info["name"] == "Alice Example")

            let refreshToken = try #require(tokens.refreshToken)
            let refreshed = try await client.refresh(refreshToken, previousIDToken: tokens.idTokenClaims)
            #expect(refreshed.accessToken != tokens.accessToken)
            let rotatedOut = await #expect(throws: FederateError.self) { try await client.refresh(refreshToken) }
            #expect(rotatedOut?.code == .invalidGrant)

            // Revoking the access token revokes its refresh token too.
            try await client.revoke(refreshed.accessToken, hint: "access_token")
            let revoked = await #expect(throws: FederateError.self) { try await client.refresh(try #require(refreshed.refreshToken)) }
            #expect(revoked?.code == .invalidGrant)
        }
    }

    @Test func publicClientAndLoginHint() async throws {
        try await Self.with { provider in
            let client = try await Self.client(provider, id: "dev-public", secret: nil)
            let built = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Self.redirectURI, loginHint: "bob@example.com")
            let tokens = try await client.finish(try await Self.authorize(built.url), pending: built.pending).tokens
            #expect(tokens.idTokenClaims?.subject == "bob")
            #expect(tokens.idTokenClaims?.emailVerified == false)
        }
    }

    @Test func codesAreSingleUseAndBoundToPKCE() async throws {
        try await Self.with { provider in
            let client = try await Self.client(provider)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Self.redirectURI)
            let callback = try await Self.authorize(built.url)
            _ = try await client.finish(callback, pending: built.pending).tokens
            let reused = await #expect(throws: FederateError.self) { try await client.finish(callback, pending: built.pending).tokens }
            #expect(reused?.code == .invalidGrant)

            // The code from one request with another request's verifier fails PKCE.
            let first = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Self.redirectURI)
            let second = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Self.redirectURI)
            let code = try #require(try await Self.authorize(first.url).parameters["code"])
            let mismatch = await #expect(throws: FederateError.self) { try await client.exchange(code: code, pending: second.pending) }
            #expect(mismatch?.code == .invalidGrant)
        }
    }

    @Test func requestsWithoutPKCEOrWithForeignRedirectsAreRefused() async throws {
        try await Self.with { provider in
            let base = provider.issuer + "/authorize?response_type=code&client_id=dev-client&scope=openid&state=s1"
            let noPKCE = try await PatientTransport.shared.send(
                HTTPRequest(url: base + "&redirect_uri=" + FormURLEncoding.escape(Self.redirectURI)))
            #expect(noPKCE.status == 302)
            let callback = try AuthorizationResponse(redirectURL: try #require(noPKCE.header("Location")))
            #expect(callback.parameters["error"] == "invalid_request")
            #expect(callback.parameters["state"] == "s1")

            let foreign = try await PatientTransport.shared.send(
                HTTPRequest(
                    url: base + "&code_challenge=" + String(repeating: "a", count: 43) + "&code_challenge_method=S256&redirect_uri="
                        + FormURLEncoding.escape("https://evil.example/callback")))
            #expect(foreign.status == 400)
            #expect(foreign.header("Location") == nil)
        }
    }

    @Test func formPostAndFragmentModes() async throws {
        try await Self.with { provider in
            let client = try await Self.client(provider)
            let fragment = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Self.redirectURI, responseMode: .fragment)
            let redirected = try await PatientTransport.shared.send(HTTPRequest(url: fragment.url))
            #expect(try #require(redirected.header("Location")).contains("#code="))

            let formPost = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Self.redirectURI, responseMode: .formPost)
            let page = try await PatientTransport.shared.send(HTTPRequest(url: formPost.url))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 200)
            #expect(html.contains("method=\"post\"") && html.contains("name=\"code\"") && html.contains("name=\"iss\""))
        }
    }

    @Test func keyRotationKeepsOldTokensValidDuringTheOverlap() async throws {
        try await Self.with { provider in
            let client = try await Self.client(provider)
            let before = try await Self.signIn(provider, client: client)
            try provider.rotateKeys(overlap: .seconds(300))
            let after = try await Self.signIn(provider, client: client)  // new kid: one refetch
            #expect(before.idTokenClaims?.keyID != after.idTokenClaims?.keyID)
            let verifier = IDTokenVerifier(policy: client.policy, keys: client.keys)
            _ = try await verifier.verify(try #require(before.idToken))
        }
    }

    @Test(arguments: [
        (DevFault.wrongIssuer, FederateError.Code.issuerMismatch), (.wrongAudience, .audienceMismatch), (.wrongNonce, .nonceMismatch),
        (.expiredToken, .tokenExpired), (.futureToken, .issuedInFuture), (.badSignature, .invalidSignature),
        (.unknownKeyID, .unknownKey), (.missingSubject, .missingClaim), (.serverError, "server_error"),
        (.malformedJSON, .invalidTokenResponse),
    ])
    func everyFaultIsRejectedWithItsCode(fault: DevFault, code: FederateError.Code) async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.clients.append(DevClient(id: "faulty", secret: "faulty-secret", redirectURIs: [Self.redirectURI], faults: [fault]))
        try await Self.with(configuration) { provider in
            let client = try await Self.client(provider, id: "faulty", secret: "faulty-secret")
            let error = await #expect(throws: FederateError.self) { try await Self.signIn(provider, client: client) }
            #expect(error?.code == code, "\(fault): \(String(describing: error))")
        }
    }

    @Test func configurationFromJSON() throws {
        let configuration = try DevProviderConfiguration(
            json: Array(
                """
                {"clients":[{"id":"c1","secret":"s1","redirect_uris":["http://127.0.0.1/cb"],"faults":["wrong_nonce"]}],
                 "users":[{"sub":"u1","email":"u1@example.com","name":"U One"}],"auto_approve":"u1"}
                """.utf8))
        #expect(configuration.clients.first?.faults == [.wrongNonce])
        #expect(configuration.clients.first?.accepts(redirectURI: "http://127.0.0.1:4321/cb") == true)
        #expect(configuration.clients.first?.accepts(redirectURI: "http://127.0.0.1:4321/other") == false)
        #expect(configuration.autoApproveSubject == "u1")
        #expect(throws: FederateError.self) {
            try DevProviderConfiguration(json: Array(#"{"clients":[{"id":"c","faults":["nope"]}],"users":[]}"#.utf8))
        }
    }

    /// The standard clients take any loopback port and path (an app's `/auth/dev/callback` as well
    /// as `federate login`'s `/callback`), and nothing that is not plain-HTTP loopback.
    @Test func standardClientsAcceptAnyLoopbackRedirect() throws {
        let client = try #require(DevProviderConfiguration.standard.clients.first)
        for uri in ["http://127.0.0.1:8080/auth/dev/callback", "http://127.0.0.1:53123/callback", "http://[::1]:9/cb?x=1"] {
            #expect(client.accepts(redirectURI: uri), "\(uri)")
        }
        for uri in [
            "https://127.0.0.1:8080/callback", "http://localhost:8080/callback", "http://127.0.0.2:8080/callback",
            "http://evil.example/callback", "http://127.0.0.1.evil.example/callback", "http://user@127.0.0.1:8080/callback",
            "http://127.0.0.1:8080/callback#fragment",
        ] {
            #expect(!client.accepts(redirectURI: uri), "\(uri)")
        }
    }
}
