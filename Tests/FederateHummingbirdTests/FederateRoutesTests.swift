import Crypto
import Federate
import FederateApple
@testable import FederateDevProvider
import FederateGoogle
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Hummingbird
import Testing

/// `FederateRoutes` on a real Hummingbird server on loopback, driven like a browser (cookies
/// and redirects by hand) against dev providers of three flavours.
@Suite("FederateRoutes end to end", .serialized)
struct FederateRoutesTests {
    static func devConfiguration(_ flavor: DevFlavor, path: String, clock: FederateClock = .system) -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard(for: flavor)
        configuration.clock = clock
        for index in configuration.clients.indices where !configuration.clients[index].redirectURIs.isEmpty {
            configuration.clients[index].redirectURIs = ["http://127.0.0.1" + path]
        }
        return configuration
    }

    @Test func signInLinkSignOutRecentLoginAndDelete() async throws {
        let generic = try await DevProvider.start(configuration: Self.devConfiguration(.generic, path: "/auth/dev/callback"))
        let google = try await DevProvider.start(configuration: Self.devConfiguration(.google, path: "/auth/google/callback"))
        let apple = try await DevProvider.start(configuration: Self.devConfiguration(.apple, path: "/auth/apple/callback"))
        defer { Task { for provider in [generic, google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        // The dev providers tell real time in `auth_time`; the server's clock starts ten minutes
        // behind and catches up below, so the first sign-in is ten minutes old by then.
        let clock = TestClock(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 600).rounded(.down)))
        // Provider tokens are stored only sealed: the vault's keys seal them, to revoke at deletion.
        let accounts = AccountService(
            store: InMemoryAccountStore(), clock: clock.clock,
            providerTokens: try ProviderTokenVault(keys: try SealingKeyRing([.generate(id: "t")])))
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared)),
            "google": GoogleProvider(
                clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(google.baseURL),
                cache: ProviderCache(httpClient: PatientTransport.shared)),
            "apple": try AppleProvider(
                servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM,
                endpoints: .at(apple.baseURL), cache: ProviderCache(httpClient: PatientTransport.shared)),
        ]
        try await RoutesServer.run(
            providers: providers, accounts: accounts, staticFiles: [AppleProvider.domainAssociationPath: "apple-association-contents"]
        ) { origin in
            let browser = TestBrowser()

            // Sign in with the generic provider; returnTo must stay on this site.
            let signedIn = try await browser.navigate(origin + "/auth/dev/start?returnTo=//evil.example/x", origin: origin)
            #expect(String(decoding: signedIn.body, as: UTF8.self) == "home")
            #expect(browser.cookie("federate_session") != nil)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            let uid = try #require(me["uid"]?.stringValue)
            #expect(me["providers"]?.arrayValue?.count == 1)
            let csrf = try #require(me["csrf_token"]?.stringValue)
            #expect(browser.cookie("federate_csrf") == csrf)

            // Link Google, then Apple (form_post, cross-site POST in real life).
            _ = try await browser.navigate(origin + "/auth/google/start?intent=link&returnTo=/", origin: origin, pick: "alice@example.com")
            _ = try await browser.navigate(origin + "/auth/apple/start?intent=link&returnTo=/", origin: origin, pick: "alice@example.com")
            let linked = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(
                Set(linked["providers"]?.arrayValue?.compactMap { $0["provider_id"]?.stringValue } ?? []) == [
                    "oidc.dev", "google.com", "apple.com",
                ])

            // Sign-out needs the CSRF header; then Google signs in to the same account.
            let forged = try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", "https://evil.example")])
            #expect(forged.status == 403)
            let signOut = try await browser.send(
                origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            #expect(signOut.status == 200)
            #expect(try await browser.send(origin + "/me").status == 401)
            _ = try await browser.navigate(origin + "/auth/google/start", origin: origin)
            #expect(try JSONParser().parseObject(try await browser.send(origin + "/me").body)["uid"]?.stringValue == uid)

            // Ten minutes later, deleting needs a recent sign-in; reauthenticating rotates the session.
            clock.advance(by: .seconds(600))
            let tooOld = try await browser.send(origin + "/me", method: "DELETE", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            #expect(tooOld.status == 403)
            #expect(String(decoding: tooOld.body, as: UTF8.self).contains("\"requires_recent_login\""))
            let before = browser.cookie("federate_session")
            // The provider is asked to sign the user in again (prompt=login, max_age=0): it shows
            // its sign-in page instead of approving from its own session.
            let prompt = try await browser.navigate(origin + "/auth/google/start?intent=reauthenticate", origin: origin)
            #expect(String(decoding: prompt.body, as: UTF8.self).contains("Sign in as"))
            #expect(browser.cookie("federate_session") == before)
            let subject = try #require(google.configuration.autoApproveSubject)
            _ = try await browser.navigate(origin + "/auth/google/start?intent=reauthenticate", origin: origin, pick: subject)
            #expect(browser.cookie("federate_session") != before)
            let deleted = try await browser.send(origin + "/me", method: "DELETE", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            #expect(deleted.status == 200, "\(String(decoding: deleted.body, as: UTF8.self))")
            #expect(try JSONParser().parseObject(deleted.body)["revoked"] == 3)
            #expect(browser.cookie("federate_session") == nil)

            // Apple's domain check gets the file itself, never a redirect.
            let association = try await browser.send(origin + "/.well-known/apple-developer-domain-association.txt")
            #expect(association.status == 200)
            #expect(String(decoding: association.body, as: UTF8.self) == "apple-association-contents")
        }
    }

    /// A provider that approves a reauthentication silently from its own session (it ignores
    /// `prompt=login` and `max_age=0`, as Apple does) proves nothing: the callback answers
    /// `requires_recent_login` and the session stays as it was.
    @Test func reauthenticationWithoutAFreshProviderSignInIsRefused() async throws {
        // One clock for the provider, the relying party and the accounts, moved by hand.
        let time = TestClock()
        var devConfiguration = Self.devConfiguration(.generic, path: "/auth/dev/callback")
        devConfiguration.clock = time.clock
        for index in devConfiguration.clients.indices { devConfiguration.clients[index].faults.insert(.ignoresPrompt) }
        let generic = try await DevProvider.start(configuration: devConfiguration)
        defer { Task { try? await generic.stop() } }
        // No tolerance: the provider's session began before the flow, whole seconds apart or not.
        let accounts = AccountService(
            store: InMemoryAccountStore(), configuration: AccountServiceConfiguration(clockTolerance: .zero), clock: time.clock)
        let cache = ProviderCache(httpClient: PatientTransport.shared, clock: time.clock)
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin)
            let session = try #require(browser.cookie("federate_session"))
            time.advance(by: .seconds(1))  // the provider's session is now a second older than the next flow
            _ = try await browser.navigate(origin + "/auth/dev/start?intent=reauthenticate", origin: origin)
            #expect(browser.history.last == origin + "/?error=requires_recent_login", "\(browser.history)")
            #expect(browser.cookie("federate_session") == session)
            #expect(try await browser.send(origin + "/me").status == 200)
        }
    }

    static func waitUntilListening(_ origin: String) async throws {
        for _ in 0..<1200 {  // up to a minute on a loaded machine
            if (try? await PatientTransport.shared.send(Federate.HTTPRequest(url: origin + "/"))) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the server did not start")
    }
}
