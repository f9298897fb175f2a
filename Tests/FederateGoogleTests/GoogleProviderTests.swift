import Federate
@testable import FederateDevProvider
@testable import FederateGoogle
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

    /// A whole installed-app sign-in through the public flow: `beginSignIn` with a loopback
    /// listener's redirect URI, the browser (`url` is handed to `inspect` first), then
    /// `completeSignIn` with the callback the listener received.
    static func signIn(
        _ google: GoogleProvider, loginHint: String? = nil, inspect: (String) -> Void = { _ in }
    ) async throws -> Credential {
        let listener = try await LoopbackRedirectListener.start(answerAfterFinish: true)
        defer { listener.close() }
        let built = try await google.beginSignIn(try SignInRequest(redirectURI: listener.redirectURI, loginHint: loginHint))
        listener.expect(state: built.pending.state)
        inspect(built.url)
        try await browser(built.url)
        do {
            let credential = try await google.completeSignIn(try await listener.waitForCallback(), pending: built.pending)
            await listener.finish(succeeded: true)
            return credential
        } catch {
            await listener.finish(succeeded: false)
            throw error
        }
    }

    @Test func installedAppLoopbackSignInWithHostedDomain() async throws {
        try await Self.with { provider in
            let google = Self.google(provider, hostedDomains: ["example.com"])
            let credential = try await Self.signIn(google) { url in
                #expect(url.contains("include_granted_scopes=true"))
                #expect(url.contains("hd=example.com"))
            }
            let idToken = try #require(credential.idToken)
            #expect(idToken.subject == "110248495921238986420")
            #expect(credential.subject == "110248495921238986420")
            #expect(idToken.claims["hd"]?.stringValue == "example.com")
            #expect(idToken.authorizedParty == Self.clientID)
            let accessToken = try #require(credential.tokens.accessToken)
            #expect("\(credential)".contains(accessToken) == false)

            // A consumer account is refused when a Workspace domain is required.
            let bob = await #expect(throws: FederateError.self) { try await Self.signIn(google, loginHint: "bob@gmail.com") }
            #expect(bob?.code == .hostedDomainMismatch)
        }
    }

    /// Granular consent through the public path: the credential `completeSignIn` gives names the
    /// scopes Google granted, so an app turns off a feature whose scope the user unticked.
    @Test func theCredentialNamesTheGrantedScopes() async throws {
        try await Self.with { provider in
            let requested = ["openid", "email", Self.calendar]
            let google = Self.google(provider, scopes: requested)
            let credential = try await Self.signIn(google, loginHint: "carol@gmail.com")
            #expect(Set(credential.grantedScopes) == ["openid", "email"])
            #expect(requested.filter { !credential.grantedScopes.contains($0) } == [Self.calendar])  // refused
            #expect(credential.grantedScopes.contains("email"))
            #expect(!credential.grantedScopes.contains(Self.calendar))
        }
    }

    @Test func refreshRevokeCascadeAndReauthenticationGuidance() async throws {
        try await Self.with { provider in
            let google = Self.google(provider)
            let credential = try await Self.signIn(google)
            let refreshToken = try #require(credential.tokens.refreshToken)
            // A refreshed ID token must name the identity the tokens were kept for (OpenID Connect Core §12.2).
            let mismatch = await #expect(throws: FederateError.self) {
                try await google.openIDProvider.refreshTokens(refreshToken, subject: credential.subject + "-another")
            }
            #expect(mismatch?.code == .refreshedIDTokenMismatch)
            let refreshed = try await google.openIDProvider.refreshTokens(refreshToken, subject: credential.subject)
            // Revoking the access token revokes its refresh token too.
            try await google.revoke(ProviderTokens(accessToken: refreshed.accessToken))
            let dead = await #expect(throws: FederateError.self) {
                try await google.openIDProvider.refreshTokens(refreshToken, subject: credential.subject)
            }
            #expect(dead?.code == .invalidGrant)
            #expect(dead?.message.contains("sign the user in again") == true)
        }
    }

    @Test(arguments: ["admin_policy_enforced", "org_internal", "disallowed_useragent", "redirect_uri_mismatch", "access_denied"])
    func authorizationErrorsKeepTheirCodeAndGainGuidance(code: String) async throws {
        try await Self.with({ $0.clients[0].authorizationError = code }) { provider in
            let google = Self.google(provider)
            let guidance = try #require(GoogleErrorGuidance.guidance(for: code))
            let error = await #expect(throws: FederateError.self) { try await Self.signIn(google) }
            #expect(error?.code.rawValue == code)
            #expect(error?.providerError?.code == code)
            #expect(error?.message.contains(guidance) == true)
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
