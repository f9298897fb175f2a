import Crypto
import Federate
import FederateApple
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// `AppleProvider` end to end against the dev provider's Apple flavour.
@Suite("AppleProvider against the dev provider")
struct AppleProviderTests {
    static let alice = "001234.abcdef0123456789abcdef0123456789.1234"

    static func with(_ body: (DevProvider, AppleProvider) async throws -> Void) async throws {
        let provider = try await DevProvider.start(configuration: .standard(for: .apple))
        do {
            let key = try #require(provider.configuration.appleClientKey)
            let apple = try AppleProvider(
                servicesID: "com.example.dev.web", bundleIDs: ["com.example.dev.app"], teamID: key.teamID, keyID: key.keyID,
                privateKeyPEM: key.privateKeyPEM, endpoints: .at(provider.baseURL),
                cache: ProviderCache(httpClient: PatientTransport.shared))
            try await body(provider, apple)
            try await provider.stop()
        } catch {
            try? await provider.stop()
            throw error
        }
    }

    /// Plays the browser up to Apple's auto-submitting form and returns the POST body.
    static func formPost(_ url: String) async throws -> [UInt8] {
        let page = try await PatientTransport.shared.send(HTTPRequest(url: url))
        #expect(page.status == 200)
        let fields = HTMLForm.hiddenFields(String(decoding: page.body, as: UTF8.self))
        return Array(FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
    }

    /// A whole web sign-in through the public flow: `beginSignIn`, the browser up to Apple's
    /// `form_post`, then `completeSignIn` with the POSTed callback.
    static func signIn(_ apple: AppleProvider, inspect: (String) -> Void = { _ in }) async throws -> Credential {
        let built = try await apple.beginSignIn(try SignInRequest(redirectURI: "http://127.0.0.1:9/callback"))
        inspect(built.url)
        return try await apple.completeSignIn(try AuthorizationResponse(formBody: try await formPost(built.url)), pending: built.pending)
    }

    @Test func webFlowGivesTheUserOnceThenOnlyTheIdentity() async throws {
        try await Self.with { _, apple in
            let first = try await Self.signIn(apple) { url in #expect(url.contains("response_mode=form_post")) }
            let identity = try AppleIdentity(try #require(first.idToken))
            #expect(identity.userID == Self.alice)
            #expect(first.subject == Self.alice)
            #expect(identity.emailVerified == true)
            #expect(first.emailVerified)
            // Apple's one-time `user` JSON: the name (never in the ID token) and the email.
            #expect(first.profile.displayName == "Alice Example")
            #expect(first.profile.email == "alice@example.com")
            let accessToken = try #require(first.tokens.accessToken)
            #expect("\(first)".contains(accessToken) == false)

            let again = try await Self.signIn(apple)
            #expect(again.profile.displayName == nil)  // no `user` the second time
            #expect(try AppleIdentity(try #require(again.idToken)).userID == Self.alice)
        }
    }

    @Test func nativeCodeIsExchangedWithTheBundleIDAndTheHashedNonce() async throws {
        try await Self.with { provider, apple in
            var apple = apple
            apple.nonceMode = .sha256Hex
            let raw = "raw-nonce-from-the-app"
            let code = try provider.nativeAuthorizationCode(
                clientID: "com.example.dev.app", subject: Self.alice, nonce: AppleNonceMode.sha256Hex.expectedClaim(for: raw))
            let credential = try await apple.exchangeNativeCode(code, bundleID: "com.example.dev.app", rawNonce: raw)
            #expect(credential.idToken?.audiences == ["com.example.dev.app"])
            #expect(credential.providerID == "apple.com")
            #expect(credential.nonceClaim == AppleNonceMode.sha256Hex.expectedClaim(for: raw))

            let other = try provider.nativeAuthorizationCode(clientID: "com.example.dev.app", subject: Self.alice, nonce: "something-else")
            let mismatch = await #expect(throws: FederateError.self) {
                try await apple.exchangeNativeCode(other, bundleID: "com.example.dev.app", rawNonce: raw)
            }
            #expect(mismatch?.code == .nonceMismatch)
            // A web code cannot be redeemed as the app, nor a bundle ID that is not configured be used.
            let unknown = await #expect(throws: FederateError.self) {
                try await apple.exchangeNativeCode(other, bundleID: "com.example.unknown")
            }
            #expect(unknown?.code == .invalidConfiguration)
        }
    }

    @Test func wrongKeyIsInvalidClientWithTheUsualExplanation() async throws {
        try await Self.with { provider, _ in
            let key = try #require(provider.configuration.appleClientKey)
            let stranger = DevAppleClientKey(teamID: key.teamID, keyID: key.keyID)
            let apple = try AppleProvider(
                servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: stranger.privateKeyPEM,
                endpoints: .at(provider.baseURL), scopes: [], cache: ProviderCache(httpClient: PatientTransport.shared))
            let built = try await apple.beginSignIn(try SignInRequest(redirectURI: "http://127.0.0.1:9/callback"))
            #expect(!built.url.contains("response_mode=form_post"))  // no name nor email: a plain redirect
            let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
            let callback = try AuthorizationResponse(redirectURL: try #require(redirect.header("Location")))
            let error = await #expect(throws: FederateError.self) { try await apple.completeSignIn(callback, pending: built.pending) }
            #expect(error?.code == "invalid_client")
            #expect(error?.message.contains("'sub' is not the client_id") == true)
        }
    }

    @Test func refreshThenRevoke() async throws {
        try await Self.with { _, apple in
            let credential = try await Self.signIn(apple)
            let refreshToken = try #require(credential.tokens.refreshToken)
            _ = try await apple.openIDProvider.refreshTokens(refreshToken, subject: credential.subject)
            try await apple.revoke(ProviderTokens(refreshToken: refreshToken))
            let dead = await #expect(throws: FederateError.self) {
                try await apple.openIDProvider.refreshTokens(refreshToken, subject: credential.subject)
            }
            #expect(dead?.code == .invalidGrant)
        }
    }

    @Test func nonP256KeyIsRefusedClearly() {
        let error = #expect(throws: FederateError.self) {
            try AppleProvider(
                servicesID: "s", teamID: "t", keyID: "k", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                cache: ProviderCache(httpClient: PatientTransport.shared))
        }
        #expect(error?.code == .invalidKey)
    }
}
