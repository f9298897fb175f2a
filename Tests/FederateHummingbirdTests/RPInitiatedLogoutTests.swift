import Federate
@testable import FederateDevProvider
import FederateGitHub
import FederateGoogle
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing
@testable import FederateServer

/// Sign-out that reaches the provider (OpenID Connect RP-Initiated Logout 1.0) through
/// `FederateRoutes`: the session's ID token kept sealed for the hint, the redirect with
/// `id_token_hint`, `post_logout_redirect_uri`, `client_id` and a `state` checked on return;
/// local-only sign-out, said so, for providers without an `end_session_endpoint`; and the
/// start of a reauthentication with a provider that cannot prove one.
@Suite("RP-initiated logout and OAuth-only providers in the routes", .serialized)
struct RPInitiatedLogoutTests {
    static func providers(_ generic: DevProvider, _ github: DevProvider, _ google: DevProvider) throws -> [String: any SignInProvider] {
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        return [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache),
            "github": try GitHubProvider(
                clientID: "dev-github-client", clientSecret: "dev-github-secret", endpoints: .enterprise(github.baseURL), cache: cache),
            "google": GoogleProvider(
                clientID: "dev-google.apps.googleusercontent.com", clientSecret: "dev-google-secret", endpoints: .at(google.baseURL),
                cache: cache),
        ]
    }

    static func signOut(_ browser: TestBrowser, origin: String) async throws -> [String: JSONValue] {
        let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
        let csrf = try #require(me["csrf_token"]?.stringValue)
        let answer = try await browser.send(
            origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
        #expect(answer.status == 200)
        return try JSONParser().parseObject(answer.body)
    }

    @Test(.timeLimit(.minutes(10)))
    func signOutReachesTheProviderAndComesBack() async throws {
        let generic = try await DevProvider.start()
        let github = try await DevProvider.start(configuration: .standard(for: .github))
        let google = try await DevProvider.start(configuration: .standard(for: .google))
        defer { Task { for provider in [generic, github, google] { try? await provider.stop() } } }
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: try Self.providers(generic, github, google), accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin)
            #expect(browser.cookie(SessionCookies.logoutHintName) != nil, "the ID token is kept for the hint")
            #expect(generic.providerSessionID(for: "alice") != nil)

            let answer = try await Self.signOut(browser, origin: origin)
            #expect(answer["signed_out"] == true && answer["provider_sign_out"] == true, "\(answer)")
            let url = try #require(answer["end_session_url"]?.stringValue)
            let query = try FormURLEncoding.decode(try #require(URLComponents(string: url)?.percentEncodedQuery))
            #expect(url.hasPrefix(generic.baseURL + "/logout?"))
            #expect(query["client_id"] == "dev-client" && query["post_logout_redirect_uri"] == origin + "/auth/signout/callback")
            let state = try #require(query["state"])
            let hint = try #require(query["id_token_hint"])
            let claims = try JSONParser().parseObject(try #require(Base64URL.decode(hint.split(separator: ".")[1])))
            #expect(claims["sub"] == "alice" && claims["aud"] == "dev-client" && claims["iss"] == .string(generic.issuer))
            #expect(try await browser.send(origin + "/me").status == 401, "signed out here before the provider is asked")
            // A forged return while the sign-out is under way is refused, and spoils nothing.
            let forgedReturn = try await browser.send(origin + "/auth/signout/callback?state=" + state + "x")
            #expect(forgedReturn.status == 303 && forgedReturn.header("Location") == "/?error=state_mismatch")
            #expect(browser.cookie(SessionCookies.signOutStateName) != nil)

            // At the provider, and back: its session ended, the state checked.
            let back = try await browser.navigate(url, origin: origin)
            #expect(String(decoding: back.body, as: UTF8.self) == "home")
            #expect(browser.history.contains(origin + "/?signed_out=provider"), "\(browser.history)")
            #expect(
                generic.providerSessionID(for: "alice") == nil && generic.logouts.last?.subject == "alice"
                    && generic.logouts.last?.clientID == "dev-client" && generic.logouts.last?.state == state)
            #expect(browser.cookie(SessionCookies.signOutStateName) == nil && browser.cookie(SessionCookies.logoutHintName) == nil)

            // A return without this browser's state (forged, or replayed) is refused.
            for forged in ["/auth/signout/callback?state=" + state, "/auth/signout/callback?state=forged", "/auth/signout/callback"] {
                let refused = try await browser.send(origin + forged)
                #expect(refused.status == 303 && refused.header("Location") == "/?error=state_mismatch", "\(forged)")
            }
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func aTamperedHintIsNotSentAndProvidersWithoutAnEndpointSignOutLocally() async throws {
        let generic = try await DevProvider.start()
        var bobAtGitHub = DevProviderConfiguration.standard(for: .github)
        bobAtGitHub.autoApproveSubject = "1002"  // GitHub takes no login_hint
        let github = try await DevProvider.start(configuration: bobAtGitHub)
        let google = try await DevProvider.start(configuration: .standard(for: .google))
        defer { Task { for provider in [generic, github, google] { try? await provider.stop() } } }
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: try Self.providers(generic, github, google), accounts: accounts) { origin in
            // Another session's hint, or a tampered one, is not sent: client_id alone.
            let first = TestBrowser(), second = TestBrowser()
            _ = try await first.navigate(origin + "/auth/dev/start", origin: origin)
            _ = try await second.navigate(origin + "/auth/dev/start", origin: origin)
            second.setCookie(SessionCookies.logoutHintName, try #require(first.cookie(SessionCookies.logoutHintName)))
            let foreign = try await Self.signOut(second, origin: origin)
            let foreignURL = try #require(foreign["end_session_url"]?.stringValue)
            #expect(!foreignURL.contains("id_token_hint") && foreignURL.contains("client_id=dev-client"))
            var hint = try #require(first.cookie(SessionCookies.logoutHintName))
            hint = String(hint.dropLast()) + (hint.hasSuffix("A") ? "B" : "A")
            first.setCookie(SessionCookies.logoutHintName, hint)
            let tampered = try await Self.signOut(first, origin: origin)
            let tamperedURL = try #require(tampered["end_session_url"]?.stringValue)
            #expect(!tamperedURL.contains("id_token_hint"), "\(tamperedURL)")
            // Without the hint the dev provider cannot tell whose session to end, and keeps it.
            _ = try await first.navigate(tamperedURL, origin: origin)
            #expect(generic.providerSessionID(for: "alice") != nil)

            // GitHub (OAuth 2.0) and Google: no end_session_endpoint: local only, and said so.
            // (Bob at each: alice@example.com, verified, is the dev provider's account already.)
            for (name, bob) in [("github", "1002"), ("google", "110248495921238986421")] {
                let browser = TestBrowser()
                _ = try await browser.navigate(origin + "/auth/\(name)/start?login_hint=\(bob)", origin: origin)
                #expect(browser.cookie(SessionCookies.logoutHintName) == nil, "\(name)")
                let answer = try await Self.signOut(browser, origin: origin)
                #expect(answer == ["signed_out": true, "provider_sign_out": false], "\(name): \(answer)")
                #expect(try await browser.send(origin + "/me").status == 401)
            }
        }
    }

    /// A reauthentication started with GitHub goes back to the page with
    /// `provider_cannot_reauthenticate` before anything is sent to GitHub; a GitHub session never
    /// counts as recent, so deleting the account asks for a re-sign-in with the other provider.
    @Test(.timeLimit(.minutes(10)))
    func gitHubCannotReauthenticate() async throws {
        let generic = try await DevProvider.start()
        let github = try await DevProvider.start(configuration: .standard(for: .github))
        let google = try await DevProvider.start(configuration: .standard(for: .google))
        defer { Task { for provider in [generic, github, google] { try? await provider.stop() } } }
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: try Self.providers(generic, github, google), accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin)
            _ = try await browser.navigate(origin + "/auth/github/start?intent=link", origin: origin, pick: "alice@example.com")
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["providers"]?.arrayValue?.count == 2)
            let csrf = try #require(me["csrf_token"]?.stringValue)
            _ = try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])

            _ = try await browser.navigate(origin + "/auth/github/start", origin: origin)
            let viaGitHub = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(viaGitHub["uid"] == me["uid"] && viaGitHub["recent_login"] == false, "\(viaGitHub)")
            let delete = try await browser.send(origin + "/me", method: "DELETE", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            #expect(delete.status == 403 && String(decoding: delete.body, as: UTF8.self).contains("requires_recent_login"))

            let start = try await browser.send(
                origin + "/auth/github/start?intent=reauthenticate&returnTo=/?confirm=delete", headers: [("Sec-Fetch-Site", "same-origin")])
            #expect(
                start.status == 303 && start.header("Location") == "/?confirm=delete&error=provider_cannot_reauthenticate",
                "\(start.headers)")
        }
    }
}
