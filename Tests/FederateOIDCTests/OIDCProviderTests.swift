import Crypto
import Federate
@testable import FederateDevProvider
@testable import FederateOIDC
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty

/// `OIDCProvider` end to end against the dev provider's generic flavour: every client
/// authentication method, RP-initiated logout, and back-channel logout tokens the provider
/// sends to a relying party's handler on loopback.
@Suite("OIDCProvider against the dev provider")
struct OIDCProviderAgainstDevProviderTests {
    /// An insecure issuer is refused when the provider is made (the application does not start),
    /// not on its first request: HTTPS, or plain HTTP on loopback only.
    @Test func anInsecureIssuerIsRefusedAtOnce() throws {
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        for (issuer, code) in [
            ("http://idp.corp.example", FederateError.Code.insecureEndpoint), ("https://10.0.0.7", .privateAddressRefused),
            ("ftp://idp.corp.example", .insecureEndpoint), ("not a url", .invalidURL),
        ] {
            do {
                _ = try OIDCProvider(id: "oidc.corp", issuer: issuer, clientID: "rp", cache: cache)
                Issue.record("\(issuer) was accepted")
            } catch {
                #expect(error.code == code, "\(issuer): \(error.code)")
            }
        }
        _ = try OIDCProvider(id: "oidc.corp", issuer: "https://idp.corp.example", clientID: "rp", cache: cache)
        _ = try OIDCProvider(id: "oidc.dev", issuer: "http://127.0.0.1:9000", clientID: "rp", cache: cache)
        _ = try OIDCProvider(id: "oidc.dev", issuer: "http://localhost:9000", clientID: "rp", cache: cache)
        // A provider on your own network, named in its allow-list.
        _ = try OIDCProvider(
            id: "oidc.corp", issuer: "https://10.0.0.7", clientID: "rp",
            profile: StandardOpenIDProfile(privateNetworkAllowList: try PrivateNetworkAllowList(["10.0.0.0/8"])), cache: cache)
    }

    static let rsaKey = try! JWSSigningKey.generateRSA(keyID: "rp-rsa")
    static let ecKey = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "rp-ec")

    static func configuration() throws -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard
        let jwks = try JSONWebKeySet(
            jwks: JSONSerializer.bytes([
                "keys": [
                    .object(try #require(rsaKey.publicJWK(algorithm: .rs256))), .object(try #require(ecKey.publicJWK(algorithm: .es256))),
                ]
            ]))
        configuration.clients += [
            DevClient(
                id: "basic-only", secret: "b-secret", redirectURIs: DevProviderConfiguration.loopbackRedirects,
                authMethods: [.clientSecretBasic]),
            DevClient(
                id: "post-only", secret: "p-secret", redirectURIs: DevProviderConfiguration.loopbackRedirects,
                authMethods: [.clientSecretPost]),
            DevClient(id: "keyed", redirectURIs: DevProviderConfiguration.loopbackRedirects, publicKeys: jwks),
        ]
        return configuration
    }

    static func with(_ body: (DevProvider) async throws -> Void) async throws {
        let provider = try await DevProvider.start(configuration: try configuration())
        do {
            try await body(provider)
            try await provider.stop()
        } catch {
            try? await provider.stop()
            throw error
        }
    }

    static func signIn(_ oidc: OIDCProvider) async throws -> (OpenIDClient, TokenSet) {
        let client = try await oidc.client()
        let built = try await oidc.authorizationRequest(with: client, redirectURI: "http://127.0.0.1:9/callback")
        let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        let callback = try AuthorizationResponse(redirectURL: try #require(redirect.header("Location")))
        return (client, try await client.finish(callback, pending: built.pending).tokens)
    }

    /// A sign-in's flow logs go to the logger the cache was given (`federate serve` passes its
    /// own, with its level), not to one the provider makes.
    @Test func theFlowLogsToTheCachesLogger() async throws {
        try await Self.with { provider in
            let logs = LogCapture()
            let oidc = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "basic-only", clientSecret: "b-secret",
                customParameters: ["nonce": "chosen-by-the-app"],
                cache: ProviderCache(httpClient: PatientTransport.shared, logger: logs.logger))
            _ = try await oidc.beginSignIn(SignInRequest(redirectURI: "http://127.0.0.1:9/callback"))
            #expect(logs.warnings.contains { $0.contains("custom authorization parameter dropped") }, "\(logs.everything)")
        }
    }

    @Test func everyClientAuthenticationMethodSignsIn() async throws {
        try await Self.with { provider in
            var basic = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "basic-only", clientSecret: "b-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            basic.authentication = .clientSecretBasic(secret: "b-secret")
            var post = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "post-only", clientSecret: "p-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            post.authentication = .clientSecretPost(secret: "p-secret")
            let providers = [
                basic, post,
                try OIDCProvider(
                    id: "oidc.dev", issuer: provider.issuer, clientID: "keyed", privateKey: (Self.rsaKey, .rs256),
                    cache: ProviderCache(httpClient: PatientTransport.shared)),
                try OIDCProvider(
                    id: "oidc.dev", issuer: provider.issuer, clientID: "keyed", privateKey: (Self.ecKey, .es256),
                    cache: ProviderCache(httpClient: PatientTransport.shared)),
                try OIDCProvider(
                    id: "oidc.dev", issuer: provider.issuer, clientID: "dev-public",
                    cache: ProviderCache(httpClient: PatientTransport.shared)),
            ]
            for oidc in providers {
                let (client, tokens) = try await Self.signIn(oidc)
                #expect(tokens.idTokenClaims?.subject == "alice", "\(client.authentication.methodName)")
            }
            // A method the client is not registered for is refused.
            var wrong = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "basic-only", clientSecret: "b-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            wrong.authentication = .clientSecretPost(secret: "b-secret")
            let refused = await #expect(throws: FederateError.self) { try await Self.signIn(wrong) }
            #expect(refused?.code == "invalid_client")
        }
    }

    @Test func rpInitiatedLogoutReturnsToTheRegisteredURI() async throws {
        try await Self.with { provider in
            let oidc = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            let (client, tokens) = try await Self.signIn(oidc)
            let url = try RPInitiatedLogout.url(
                metadata: client.metadata, clientID: "dev-client", idTokenHint: tokens.idToken,
                postLogoutRedirectURI: "http://127.0.0.1:9/callback", state: "bye-1")
            let response = try await PatientTransport.shared.send(HTTPRequest(url: url))
            #expect(response.status == 302)
            #expect(response.header("Location") == "http://127.0.0.1:9/callback?state=bye-1")
        }
    }

    @Test func backChannelLogoutTokensFromTheProvider() async throws {
        try await Self.with { provider in
            let oidc = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
            let client = try await oidc.client()
            let verifier = BackChannelLogoutVerifier(client: client)
            let receiver = try await LoopbackHTTPServer.start { request in
                let answer = await verifier.handle(formBody: request.body)
                return TestHTTPResponse(status: answer.status, headers: [("Cache-Control", "no-store")])
            }
            defer { Task { try? await receiver.stop() } }
            let url = receiver.baseURL + "/backchannel-logout"
            func send(_ token: String) async throws -> Int { try await provider.sendBackChannelLogout(token, to: url) }

            #expect(try await send(provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", sessionID: "s-1")) == 200)
            #expect(
                try await send(provider.backChannelLogoutToken(clientID: "dev-client", subject: nil, sessionID: "s-1", signature: .es256))
                    == 200)
            let refused: [String] = [
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", signature: .hs256(secret: "dev-secret")),
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", signature: .none),
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", audience: "another-client"),
                try provider.backChannelLogoutToken(
                    clientID: "dev-client", subject: "alice", events: ["http://schemas.openid.net/event/other": [:]]),
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", nonce: "n-1"),
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice", events: nil),
                try provider.backChannelLogoutToken(clientID: "dev-client", subject: nil),
            ]
            for token in refused {
                #expect(try await send(token) == 400)
            }
        }
    }
}
