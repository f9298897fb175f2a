import Federate
import FederateDevProvider
import FederateGoogle
import FederateTestSupport
import Foundation
import Testing

/// `GoogleProvider` end to end against the dev provider's Google flavour.
@Suite("GoogleProvider against the dev provider")
struct GoogleProviderTests {
    static let clientID = "dev-google.apps.googleusercontent.com"
    static let calendar = "https://www.googleapis.com/auth/calendar.readonly"

    static func with(_ change: (inout DevProviderConfiguration) -> Void = { _ in }, _ body: (DevProvider) async throws -> Void) async throws
    {
        var configuration = DevProviderConfiguration.standard(for: .google)
        configuration.users[2].refusedScopes = [calendar]
        change(&configuration)
        let provider = try await DevProvider.start(configuration: configuration)
        do {
            try await body(provider)
            try await provider.stop()
        } catch {
            try? await provider.stop()
            throw error
        }
    }

    static func google(
        _ provider: DevProvider, scopes: [String] = ["openid", "email", "profile"], hostedDomains: IdentifierSet = []
    ) -> GoogleProvider {
        GoogleProvider(
            clientID: clientID, clientSecret: "dev-google-secret", endpoints: .at(provider.baseURL), scopes: scopes,
            hostedDomains: hostedDomains, cache: ProviderCache(httpClient: PatientTransport.shared))
    }

    /// Plays the browser: follows the URL and then the redirect to the loopback listener. Like
    /// a real browser it is not awaited: the listener's page waits for the sign-in to finish.
    static func browser(_ url: String) async throws {
        let approved = try await PatientTransport.shared.send(HTTPRequest(url: url))
        let callback = try #require(approved.header("Location"))
        Task { _ = try? await PatientTransport.shared.send(HTTPRequest(url: callback)) }
    }

    @Test func installedAppLoopbackSignInWithHostedDomain() async throws {
        try await Self.with { provider in
            let google = Self.google(provider, hostedDomains: ["example.com"])
            let client = try await google.client()
            let signIn = try await google.signInWithLoopback(
                client: client, listener: try await LoopbackRedirectListener.start(answerAfterFinish: true)
            ) { url in
                #expect(url.contains("include_granted_scopes=true"))
                #expect(url.contains("hd=example.com"))
                try await Self.browser(url)
            }
            #expect(signIn.idToken.subject == "110248495921238986420")
            #expect(signIn.hostedDomain == "example.com")
            #expect(signIn.idToken.authorizedParty == Self.clientID)
            #expect("\(signIn)".contains(signIn.tokens.accessToken) == false)

            // A consumer account is refused when a Workspace domain is required.
            let bob = await #expect(throws: FederateError.self) {
                try await google.signInWithLoopback(
                    client: client, listener: try await LoopbackRedirectListener.start(answerAfterFinish: true), loginHint: "bob@gmail.com"
                ) { try await Self.browser($0) }
            }
            #expect(bob?.code == .hostedDomainMismatch)
        }
    }

    @Test func granularConsentIsTyped() async throws {
        try await Self.with { provider in
            let google = Self.google(provider, scopes: ["openid", "email", Self.calendar])
            let client = try await google.client()
            let signIn = try await google.signInWithLoopback(
                client: client, listener: try await LoopbackRedirectListener.start(answerAfterFinish: true), loginHint: "carol@gmail.com"
            ) { try await Self.browser($0) }
            #expect(signIn.refusedScopes == [Self.calendar])
            #expect(signIn.granted("email"))
            #expect(!signIn.granted(Self.calendar))
        }
    }

    /// The same through the public path: the credential `completeSignIn` gives names the scopes
    /// Google granted, so an app turns off a feature whose scope the user unticked.
    @Test func theCredentialNamesTheGrantedScopes() async throws {
        try await Self.with { provider in
            let google = Self.google(provider, scopes: ["openid", "email", Self.calendar])
            let listener = try await LoopbackRedirectListener.start(answerAfterFinish: true)
            defer { listener.close() }
            let built = try await google.beginSignIn(try SignInRequest(redirectURI: listener.redirectURI, loginHint: "carol@gmail.com"))
            listener.expect(state: built.pending.state)
            try await Self.browser(built.url)
            let credential = try await google.completeSignIn(try await listener.waitForCallback(), pending: built.pending)
            await listener.finish(succeeded: true)
            #expect(Set(credential.grantedScopes) == ["openid", "email"])
            #expect(!credential.grantedScopes.contains(Self.calendar))
        }
    }

    @Test func refreshRevokeCascadeAndReauthenticationGuidance() async throws {
        try await Self.with { provider in
            let google = Self.google(provider)
            let client = try await google.client()
            let signIn = try await google.signInWithLoopback(
                client: client, listener: try await LoopbackRedirectListener.start(answerAfterFinish: true)
            ) { try await Self.browser($0) }
            let refreshToken = try #require(signIn.tokens.refreshToken)
            let refreshed = try await google.refresh(refreshToken, client: client, previousIDToken: signIn.idToken)
            try await google.revoke(refreshed.accessToken, client: client)
            let dead = await #expect(throws: FederateError.self) { try await google.refresh(refreshToken, client: client) }
            #expect(dead?.code == .invalidGrant)
            #expect(dead?.message.contains("sign the user in again") == true)
        }
    }

    @Test(arguments: ["admin_policy_enforced", "org_internal", "disallowed_useragent", "redirect_uri_mismatch", "access_denied"])
    func authorizationErrorsKeepTheirCodeAndGainGuidance(code: String) async throws {
        try await Self.with({ $0.clients[0].authorizationError = code }) { provider in
            let google = Self.google(provider)
            let client = try await google.client()
            let error = await #expect(throws: FederateError.self) {
                try await google.signInWithLoopback(
                    client: client, listener: try await LoopbackRedirectListener.start(answerAfterFinish: true)
                ) { try await Self.browser($0) }
            }
            #expect(error?.code.rawValue == code)
            #expect(error?.providerError?.code == code)
            #expect(error?.message.contains(try #require(GoogleErrorGuidance.guidance(for: code))) == true)
        }
    }
}

@Suite("Google installed-app redirect URIs")
struct GoogleRedirectURITests {
    @Test(arguments: [
        "http://127.0.0.1:8080/callback", "http://[::1]:53123", "com.example.app:/oauth2redirect", "com.example.app:",
        "com.googleusercontent.apps.123-abc:/oauth2redirect",
    ])
    func acceptsGooglesForms(uri: String) throws {
        _ = try GoogleRedirectURI(uri)
    }

    @Test(arguments: [
        "http://localhost:8080/callback", "https://127.0.0.1:8080/cb", "http://127.0.0.1/cb", "http://10.0.0.1:80/cb", "myapp:/callback",
        "com.example.app://oauth2redirect", "com.example.app:oauth2redirect", "com.example.app:/cb?x=1", "1com.example:/cb",
        "com.exa mple:/cb",
        "http://127.0.0.1:0/cb", "http://127.0.0.1:70000/cb",
    ])
    func refusesEverythingElse(uri: String) {
        let error = #expect(throws: FederateError.self) { try GoogleRedirectURI(uri) }
        #expect(error?.code == .invalidRedirectURI)
    }

    @Test func derivesTheSchemeFromTheClientIDAndAppliesTheUWPLimit() throws {
        let redirect = try GoogleRedirectURI.forClientID("123-abc.apps.googleusercontent.com")
        #expect(redirect.uri == "com.googleusercontent.apps.123-abc:/oauth2redirect")
        #expect(redirect.kind == .customScheme("com.googleusercontent.apps.123-abc"))
        #expect(throws: FederateError.self) { try GoogleRedirectURI.scheme(forClientID: "not-a-google-client") }
        let long = String(repeating: "a", count: 36) + ".com:/cb"  // a 40-character scheme
        _ = try GoogleRedirectURI(long)
        let uwp = #expect(throws: FederateError.self) { try GoogleRedirectURI(long, forUWP: true) }
        #expect(uwp?.code == .invalidRedirectURI)
    }
}
