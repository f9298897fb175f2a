import Federate
import FederateApple
import FederateDevProvider
import FederateExampleMicrosoft
import FederateGoogle
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// Google, Apple and any OIDC provider behind the one `SignInProvider` protocol a server
/// uses, feeding the account layer: the whole path from redirect to account.
@Suite("SignInProvider: every provider into the account layer")
struct SignInProviderTests {
    /// Plays the browser for `provider` (redirect or Apple's form_post) and completes the sign-in.
    static func signIn(_ provider: any SignInProvider, intent: AuthorizationIntent = .signIn) async throws -> Credential {
        let built = try await provider.beginSignIn(try SignInRequest(redirectURI: "http://127.0.0.1:9/callback", intent: intent))
        // A link asks the provider to sign the user in again (prompt=login): alice signs in on its page.
        let signsInAgain = built.url.contains("prompt=login")
        let response = try await PatientTransport.shared.send(
            HTTPRequest(url: built.url + (signsInAgain ? "&user=alice%40example.com" : "")))
        let callback =
            response.status == 200
            ? AuthorizationResponse(parameters: HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self)))
            : try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
        return try await provider.completeSignIn(callback, pending: built.pending)
    }

    @Test func oneAccountAcrossGenericGoogleAndApple() async throws {
        let generic = try await DevProvider.start()
        let google = try await DevProvider.start(configuration: .standard(for: .google))
        let apple = try await DevProvider.start(configuration: .standard(for: .apple))
        defer { Task { for provider in [generic, google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        let providers: [any SignInProvider] = [
            try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared)),
            GoogleProvider(
                clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(google.baseURL),
                cache: ProviderCache(httpClient: PatientTransport.shared)),
            try AppleProvider(
                servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM,
                endpoints: .at(apple.baseURL), cache: ProviderCache(httpClient: PatientTransport.shared)),
        ]
        #expect(providers.map(\.providerID) == ["oidc.dev", "google.com", "apple.com"])
        let accounts = AccountService(
            store: InMemoryAccountStore(), providerTokens: try ProviderTokenVault(keys: try SealingKeyRing([.generate(id: "t")])))

        // Sign in with the generic provider: a new account.
        let first = try await accounts.signIn(with: try await Self.signIn(providers[0]))
        #expect(first.additionalUserInfo.isNewUser)
        let uid = first.user.uid

        // Link Google and Apple to it; Apple's one-time name arrives in the profile.
        _ = try await accounts.link(uid, with: try await Self.signIn(providers[1], intent: .link))
        let appleCredential = try await Self.signIn(providers[2], intent: .link)
        #expect(appleCredential.profile.displayName == "Alice Example")
        let linked = try await accounts.link(uid, with: appleCredential)
        #expect(Set(linked.user.providerIDs) == ["oidc.dev", "google.com", "apple.com"])

        // Signing in with Google or Apple lands on the same account.
        for provider in providers.dropFirst() {
            let again = try await accounts.signIn(with: try await Self.signIn(provider))
            #expect(again.user.uid == uid)
            #expect(!again.additionalUserInfo.isNewUser)
        }

        // Deleting the account hands back the provider tokens, and the providers revoke them.
        let session = try #require(first.session)
        let revocable = try await accounts.deleteUser(uid: session.uid)
        #expect(Set(revocable.map(\.providerID)) == ["oidc.dev", "google.com", "apple.com"])
        for tokens in revocable {
            let provider = try #require(providers.first { $0.providerID == tokens.providerID })
            try await provider.revoke(tokens.tokens)
        }
    }

    @Test func oidcManualCredentialFromAnIDTokenObtainedElsewhere() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let oidc = try OIDCProvider(
            id: "oidc.dev", issuer: provider.issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        // The "app" signs in on its own and sends the ID token and its raw nonce.
        let client = try await oidc.client()
        let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback")
        let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        let idToken = try #require(tokens.idToken)

        let credential = try await oidc.credential(idToken: idToken, rawNonce: built.pending.nonce, accessToken: tokens.accessToken)
        #expect(credential.subject == "alice")
        #expect(credential.providerID == "oidc.dev")
        let wrongNonce = await #expect(throws: FederateError.self) { try await oidc.credential(idToken: idToken, rawNonce: "another") }
        #expect(wrongNonce?.code == .nonceMismatch)
        let wrongAccessToken = await #expect(throws: FederateError.self) {
            try await oidc.credential(idToken: idToken, accessToken: "other-token")
        }
        #expect(wrongAccessToken?.code == .atHashMismatch)
        let otherClient = try OIDCProvider(
            id: "oidc.dev", issuer: provider.issuer, clientID: "dev-public", cache: ProviderCache(httpClient: PatientTransport.shared))
        let foreign = await #expect(throws: FederateError.self) { try await otherClient.credential(idToken: idToken) }
        #expect(foreign?.code == .audienceMismatch)
        let tampered = await #expect(throws: FederateError.self) { try await oidc.credential(idToken: idToken + "x") }
        #expect(tampered != nil)
    }

    @Test func everyProviderVerifiesItsOwnIDTokensAsBearerTokensAndNoOthers() async throws {
        let generic = try await DevProvider.start()
        let google = try await DevProvider.start(configuration: .standard(for: .google))
        let apple = try await DevProvider.start(configuration: .standard(for: .apple))
        defer { Task { for provider in [generic, google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        let oidc = try OIDCProvider(
            id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
        let googleProvider = GoogleProvider(
            clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(google.baseURL),
            cache: cache)
        let appleProvider = try AppleProvider(
            servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM,
            endpoints: .at(apple.baseURL), cache: cache)

        // An ID token from each, as an app would obtain it.
        var tokens: [String: String] = [:]
        for (provider, client) in [
            (oidc as any SignInProvider, try await oidc.client()), (googleProvider, try await googleProvider.openIDProvider.client()),
            (appleProvider, try await appleProvider.openIDProvider.client()),
        ] {
            let built = try await provider.beginSignIn(try SignInRequest(redirectURI: "http://127.0.0.1:9/callback"))
            let response = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
            let callback =
                response.status == 200
                ? AuthorizationResponse(parameters: HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self)))
                : try AuthorizationResponse(redirectURL: try #require(response.header("Location")))
            tokens[provider.providerID] = try await client.finish(callback, pending: built.pending).tokens.idToken
        }

        // One protocol: each provider's verifier takes its own tokens and refuses the others'.
        let sources: [any BearerTokenSource & SignInProvider] = [oidc, googleProvider, appleProvider]
        for source in sources {
            let verifier = source.bearerVerifier()
            for (issuedBy, token) in tokens {
                if issuedBy == source.providerID {
                    let identity = try await verifier.verify(token)
                    #expect(identity.providerID == issuedBy)
                    #expect(identity.kind == .idToken && identity.subject?.isEmpty == false)
                } else {
                    let refused = await #expect(throws: FederateError.self) { try await verifier.verify(token) }
                    // Another provider's keys: the signature (or the key) fails before the claims are read.
                    #expect([.invalidSignature, .unknownKey].contains(refused?.code), "\(source.providerID) on a token of \(issuedBy)")
                }
            }
        }
    }

    @Test func aFourthProviderPlugsInThroughTheProfile() async throws {
        // Docs/Architecture.md's Microsoft provider, against the dev provider standing in for a tenant.
        let dev = try await DevProvider.start()
        defer { Task { try? await dev.stop() } }
        let microsoft = try EntraTenantProvider(
            tenant: "contoso", clientID: "dev-client", clientSecret: "dev-secret", issuer: dev.issuer,
            cache: ProviderCache(httpClient: PatientTransport.shared))
        let accounts = AccountService(store: InMemoryAccountStore())
        let signedIn = try await accounts.signIn(with: try await Self.signIn(microsoft))
        #expect(signedIn.user.providerIDs == ["microsoft.com"])

        // The profile explains Entra's refusals, keeping the provider's code.
        let refused = EntraTenantProfile().explain(
            FederateError(providerError: ProviderError(code: "invalid_client", description: nil, uri: nil)))
        #expect(refused.code == .invalidClient)
        #expect(refused.message.contains("Certificates & secrets"))
    }
}
