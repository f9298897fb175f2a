import Crypto
import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Synchronization
import Testing
@testable import FederateRelyingParty

/// Client credentials (RFC 6749 §4.4) with every client authentication Federate has, the
/// service token cache, DPoP, and token exchange (RFC 8693), against the dev provider's generic
/// flavour; and `federate token client-credentials` / `federate token exchange`.
@Suite("Service grants: client credentials and token exchange")
struct ServiceGrantTests {
    /// A transport that counts token requests.
    final class Counting: HTTPClient {
        let count = Mutex(0)
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            if request.method == "POST" { count.withLock { $0 += 1 } }
            return try await PatientTransport.shared.send(request)
        }
    }

    static let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "svc-1")

    static func configuration(clock: FederateClock = .system) throws -> DevProviderConfiguration {
        var configuration = try ClientAuthenticationAndFaultTests.keyedConfiguration(key)
        configuration.clock = clock
        configuration.tokenLifetime = .seconds(600)
        return configuration
    }

    static func metadata(_ provider: DevProvider) async throws -> AuthorizationServerMetadata {
        try await AuthorizationServerDiscovery(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
    }

    @Test func clientCredentialsWithEveryClientAuthentication() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let metadata = try await Self.metadata(provider)
            let methods: [(String, ClientAuthentication)] = [
                ("dev-client", .clientSecretBasic(secret: "dev-secret")), ("dev-client", .clientSecretPost(secret: "dev-secret")),
                ("keyed", .privateKeyJWT(key: Self.key, algorithm: .es256)),
            ]  // client_secret_jwt: clientSecretJWTAndDPoP (it needs a 32-byte secret)
            for (clientID, authentication) in methods {
                let client = try ServiceTokenClient(
                    metadata: metadata, clientID: clientID, authentication: authentication, httpClient: PatientTransport.shared)
                let token = try await client.clientCredentials(scopes: ["invoices:read"], resources: ["https://api.example/invoices"])
                #expect(
                    token.tokenType == "Bearer" && token.scopes == ["invoices:read"] && token.expiresAt != nil,
                    "\(authentication.methodName)")
                let claims = try JSONParser().parseObject(try #require(Base64URL.decode(token.token.split(separator: ".")[1])))
                #expect(claims["sub"] == .string(clientID) && claims["aud"] == "https://api.example/invoices", "\(claims)")
            }
            // A wrong secret: the provider's own code.
            let wrong = try ServiceTokenClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "nope"),
                httpClient: PatientTransport.shared)
            let refused = await #expect(throws: FederateError.self) { try await wrong.clientCredentials() }
            #expect(refused?.code == .invalidClient)
            // A public client has no credentials to grant on.
            let none = #expect(throws: FederateError.self) {
                try ServiceTokenClient(
                    metadata: metadata, clientID: "dev-public", authentication: .none, httpClient: PatientTransport.shared)
            }
            #expect(none?.code == .invalidConfiguration)
            // Hostile parameters never leave the process.
            let client = try ServiceTokenClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"),
                httpClient: PatientTransport.shared)
            for (scopes, resources) in [(["a b"], []), (["quote\""], []), ([], ["relative/path"]), ([], ["https://api.example/#frag"])]
                as [([String], [String])]
            {
                let error = await #expect(throws: FederateError.self) {
                    try await client.clientCredentials(scopes: scopes, resources: resources)
                }
                #expect(error?.code == .invalidConfiguration)
            }
        }
    }

    @Test func clientSecretJWTAndDPoP() async throws {
        var configuration = try Self.configuration()
        configuration.clients.append(DevClient(id: "long-secret", secret: String(repeating: "s", count: 40), redirectURIs: []))
        try await Flavor.with(configuration) { provider in
            let metadata = try await Self.metadata(provider)
            let jwt = try ServiceTokenClient(
                metadata: metadata, clientID: "long-secret", authentication: .clientSecretJWT(secret: String(repeating: "s", count: 40)),
                httpClient: PatientTransport.shared)
            #expect(try await jwt.clientCredentials().tokenType == "Bearer")
            let signer = DPoPProofSigner()
            let bound = try await jwt.withDPoP(signer).clientCredentials(scopes: ["a"])
            #expect(bound.isDPoPBound)
            let claims = try JSONParser().parseObject(try #require(Base64URL.decode(bound.token.split(separator: ".")[1])))
            #expect(claims["cnf"]?["jkt"] == .string(signer.thumbprint))
            let cache = ServiceTokenCache(client: jwt.withDPoP(signer))
            let request = try await cache.authorize(HTTPRequest(url: "https://api.example/x"), scopes: ["a"])
            let names = request.headers.map { $0.name.lowercased() }
            #expect(request.headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("DPoP ") } && names.contains("dpop"))
        }
    }

    @Test func theCacheSharesOneRequestAndRenewsBeforeExpiry() async throws {
        let clock = TestClock()
        try await Flavor.with(try Self.configuration(clock: clock.clock)) { provider in
            let counting = Counting()
            let client = try ServiceTokenClient(
                metadata: try await Self.metadata(provider), clientID: "dev-client",
                authentication: .clientSecretBasic(secret: "dev-secret"),
                httpClient: counting, clock: clock.clock)
            let cache = ServiceTokenCache(client: client, refreshBefore: .seconds(60))
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await cache.token(scopes: ["b", "a"]).token } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1 && counting.count.withLock { $0 } == 1)
            // The same scopes in another order share the key; a look-alike audience does not
            // (a look-alike scope never leaves the process: scopes are printable ASCII).
            _ = try await cache.token(scopes: ["a", "b"])
            #expect(counting.count.withLock { $0 } == 1)
            let api = try await cache.token(scopes: ["a", "b"], audience: "api")
            let lookAlike = try await cache.token(scopes: ["a", "b"], audience: "ap\u{0456}")
            #expect(api.token != lookAlike.token && counting.count.withLock { $0 } == 3)
            // 600 s tokens: still cached at 530 s, renewed at 541 s (within 60 s of expiry).
            clock.advance(by: .seconds(530))
            #expect(try await cache.token(scopes: ["a", "b"]).token == tokens.first)
            clock.advance(by: .seconds(11))
            let renewed = try await cache.token(scopes: ["a", "b"])
            #expect(renewed.token != tokens.first && counting.count.withLock { $0 } == 4)
        }
    }

    @Test func tokenExchange() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let metadata = try await Self.metadata(provider)
            let client = try ServiceTokenClient(
                metadata: metadata, clientID: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret"),
                httpClient: PatientTransport.shared)
            let subject = try await Flavor.signIn(
                try await Flavor.client(provider, id: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret")))
            let actor = try await client.clientCredentials()
            let exchanged = try await client.exchange(
                TokenExchangeRequest(
                    subjectToken: subject.accessToken, actorToken: actor.token, actorTokenType: TokenExchangeRequest.TokenType.accessToken,
                    requestedTokenType: TokenExchangeRequest.TokenType.accessToken, resources: ["https://orders.example/api"],
                    scopes: ["orders:read"]))
            #expect(exchanged.issuedTokenType == TokenExchangeRequest.TokenType.accessToken && exchanged.tokenType == "Bearer")
            let claims = try JSONParser().parseObject(try #require(Base64URL.decode(exchanged.token.split(separator: ".")[1])))
            #expect(claims["sub"] == "alice" && claims["aud"] == "https://orders.example/api" && exchanged.scopes == ["orders:read"])

            let target = await #expect(throws: FederateError.self) {
                try await client.exchange(
                    TokenExchangeRequest(subjectToken: subject.accessToken, audiences: ["https://forbidden.example/x"]))
            }
            #expect(target?.code == .invalidTarget)
            let grant = await #expect(throws: FederateError.self) {
                try await client.exchange(TokenExchangeRequest(subjectToken: "made-up"))
            }
            #expect(grant?.code == .invalidGrant)
            let halfActor = await #expect(throws: FederateError.self) {
                try await client.exchange(TokenExchangeRequest(subjectToken: subject.accessToken, actorToken: actor.token))
            }
            #expect(halfActor?.code == .invalidConfiguration)
        }
    }

    @Test func theCommandLine() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let issued = try await CLIProcess.run([
                "token", "client-credentials", "--issuer", provider.issuer, "--client-id", "dev-client", "--client-secret", "dev-secret",
                "--scope", "reports:read", "--resource", "https://reports.example/", "--dpop",
            ])
            #expect(issued.status == 0, "\(issued.stdout) \(issued.stderr)")
            let token = try JSONParser().parseObject(Array(issued.stdout.utf8))
            #expect(token["token_type"] == "DPoP" && token["scope"] == "reports:read" && token["dpop_jkt"] != nil, "\(token)")

            let subject = try await Flavor.signIn(
                try await Flavor.client(provider, id: "dev-client", authentication: .clientSecretBasic(secret: "dev-secret")))
            let exchanged = try await CLIProcess.run([
                "token", "exchange", "--token-endpoint", provider.baseURL + "/token", "--client-id", "dev-client", "--client-secret",
                "dev-secret",
                "--auth-method", "client_secret_post", "--subject-token", subject.accessToken, "--audience", "orders",
            ])
            #expect(exchanged.status == 0, "\(exchanged.stdout) \(exchanged.stderr)")
            let answer = try JSONParser().parseObject(Array(exchanged.stdout.utf8))
            #expect(answer["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token" && answer["access_token"] != nil)

            let refused = try await CLIProcess.run([
                "token", "exchange", "--issuer", provider.issuer, "--client-id", "dev-client", "--client-secret", "dev-secret",
                "--subject-token", subject.accessToken, "--resource", "https://forbidden.example/",
            ])
            let refusal = try? JSONParser().parseObject(Array(refused.stdout.utf8))
            #expect(refused.status == 1 && refusal?["error"] == "invalid_target", "\(refused.stdout)")
            let publicClient = try await CLIProcess.run([
                "token", "client-credentials", "--issuer", provider.issuer, "--client-id", "dev-public",
            ])
            #expect(publicClient.status != 0 && publicClient.stderr.contains("client-secret"), "\(publicClient.stderr)")
        }
    }
}
