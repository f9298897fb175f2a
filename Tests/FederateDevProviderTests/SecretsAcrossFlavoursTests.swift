import Federate
import FederateApple
@testable import FederateDevProvider
import FederateGoogle
import FederateOIDC
import FederateTestSupport
import Foundation
import Logging
import Testing

/// Signs in with every provider flavour — successes and failures — with Federate logging at
/// `trace`, and checks that no access token, refresh token, ID token, client secret, code,
/// code verifier, state or nonce appears in a log line, an error, or a `description`.
@Suite("Secrets stay out: every flavour")
struct SecretsAcrossFlavoursTests {
    /// What one run saw (text to search) and the secrets it handled.
    final class Run: @unchecked Sendable {
        let logs = LogCapture()
        private let lock = NSLock()
        private var texts: [String] = []
        private var secrets: Set<String> = []

        func saw(_ items: Any...) { lock.withLock { texts += items.map { "\($0)" } } }
        func secret(_ values: String?...) { lock.withLock { secrets.formUnion(values.compactMap { $0 }.filter { !$0.isEmpty }) } }
        func failure(_ body: () async throws -> Void) async {
            do { try await body() } catch {
                saw(error, (error as? FederateError)?.message ?? "")
            }
        }
        func tokens(_ tokens: TokenSet) {
            secret(tokens.accessToken, tokens.refreshToken, tokens.idToken)
            saw(tokens)
        }
        func pending(_ built: BuiltAuthorizationRequest) {
            secret(built.pending.state, built.pending.nonce, built.pending.codeVerifier)
            saw(built.pending)
        }
        func check() {
            let everything = lock.withLock { texts } + logs.everything
            #expect(!logs.everything.isEmpty, "nothing was logged: the check would be empty")
            for secret in lock.withLock({ secrets }) {
                for line in everything where line.contains(secret) {
                    Issue.record("a secret leaked into: \(line.prefix(300))")
                }
            }
        }
    }

    static func started(_ flavor: DevFlavor) async throws -> DevProvider {
        try await DevProvider.start(configuration: .standard(for: flavor))
    }

    /// Follows the authorization URL; records the code the redirect carries.
    static func callback(_ url: String, run: Run) async throws -> AuthorizationResponse {
        let response = try await PatientTransport.shared.send(HTTPRequest(url: url))
        let callback =
            response.status == 200
            ? AuthorizationResponse(parameters: HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self)))
            : try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
        run.secret(callback.parameters["code"])
        run.saw(callback)
        return callback
    }

    @Test func genericAndFirebaseThroughOIDCProvider() async throws {
        for flavor in [DevFlavor.generic, .firebase] {
            let run = Run()
            let provider = try await Self.started(flavor)
            defer { Task { try? await provider.stop() } }
            let client0 = provider.configuration.clients[0]
            let secret = try provider.clientSecret(for: client0)
            run.secret(secret)
            let oidc = try OIDCProvider(
                id: "oidc.dev", issuer: provider.issuer, clientID: client0.id, clientSecret: secret,
                cache: ProviderCache(httpClient: PatientTransport.shared))
            let client = try await oidc.client(
                discovery: DiscoveryClient(httpClient: PatientTransport.shared, logger: run.logs.logger), logger: run.logs.logger)
            run.saw(client.authentication)
            let built = try await oidc.authorizationRequest(with: client, redirectURI: "http://127.0.0.1:9/callback")
            run.pending(built)
            let callback = try await Self.callback(built.url, run: run)
            let tokens = try await client.finish(callback, pending: built.pending).tokens
            run.tokens(tokens)
            if let refreshToken = tokens.refreshToken {
                run.tokens(try await client.refresh(refreshToken, previousIDToken: tokens.idTokenClaims))
                await run.failure { _ = try await client.refresh(refreshToken) }  // rotated out
            }
            await run.failure { _ = try await client.finish(callback, pending: built.pending).tokens }  // code reused
            await run.failure { _ = try await client.userInfo(accessToken: tokens.accessToken, expectedSubject: "someone-else") }
            run.check()
        }
    }

    @Test func google() async throws {
        let run = Run()
        let provider = try await Self.started(.google)
        defer { Task { try? await provider.stop() } }
        run.secret("dev-google-secret")
        let google = GoogleProvider(
            clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(provider.baseURL),
            cache: ProviderCache(httpClient: PatientTransport.shared))
        let client = try await google.openIDProvider.client(
            discovery: DiscoveryClient(httpClient: PatientTransport.shared, logger: run.logs.logger), logger: run.logs.logger)
        let built = try await google.openIDProvider.authorizationRequest(with: client, redirectURI: "http://127.0.0.1:9/callback")
        run.pending(built)
        let callback = try await Self.callback(built.url, run: run)
        let signIn = try await client.finish(callback, pending: built.pending)
        let tokens = signIn.tokens
        run.tokens(tokens)
        run.saw(Credential(providerID: google.providerID, signIn: signIn, rawNonce: built.pending.nonce))
        let refreshToken = try #require(tokens.refreshToken)
        run.tokens(try await client.refresh(refreshToken))
        try await client.revoke(refreshToken)
        await run.failure { _ = try await client.refresh(refreshToken) }
        await run.failure { try await client.revoke(refreshToken) }
        await run.failure { _ = try await client.finish(callback, pending: built.pending).tokens }  // code reused
        run.check()
    }

    @Test func apple() async throws {
        let run = Run()
        let provider = try await Self.started(.apple)
        defer { Task { try? await provider.stop() } }
        let key = try #require(provider.configuration.appleClientKey)
        let apple = try AppleProvider(
            servicesID: "com.example.dev.web", bundleIDs: ["com.example.dev.app"], teamID: key.teamID, keyID: key.keyID,
            privateKeyPEM: key.privateKeyPEM, endpoints: .at(provider.baseURL), cache: ProviderCache(httpClient: PatientTransport.shared))
        let client = try await apple.openIDProvider.client(
            discovery: DiscoveryClient(httpClient: PatientTransport.shared, logger: run.logs.logger), logger: run.logs.logger)
        if case .clientSecretPost(let secret) = client.authentication { run.secret(secret) }
        run.secret(key.privateKeyPEM)
        run.saw(client.authentication)
        let built = try await apple.openIDProvider.authorizationRequest(with: client, redirectURI: "http://127.0.0.1:9/callback")
        run.pending(built)
        let callback = try await Self.callback(built.url, run: run)
        let signIn = try await client.finish(try AppleCallback(response: callback).response, pending: built.pending)
        let tokens = signIn.tokens
        run.tokens(tokens)
        let identity = try AppleIdentity(signIn.idToken)
        run.saw(Credential(providerID: apple.providerID, signIn: signIn, rawNonce: built.pending.nonce))
        let refreshToken = try #require(tokens.refreshToken)
        run.tokens(try await client.refresh(refreshToken))
        try await client.revoke(refreshToken, hint: "refresh_token")
        await run.failure { _ = try await client.refresh(refreshToken) }
        let native = try provider.nativeAuthorizationCode(clientID: "com.example.dev.app", subject: identity.userID, nonce: "n")
        run.secret(native)
        await run.failure { _ = try await apple.exchangeNativeCode(native, bundleID: "com.example.dev.app", rawNonce: "other") }
        await run.failure { _ = try await apple.exchangeNativeCode(native, bundleID: "com.example.dev.app", rawNonce: "n") }  // used
        run.check()
    }
}
