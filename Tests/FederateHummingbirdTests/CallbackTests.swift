import Crypto
import Federate
@testable import FederateDevProvider
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Hummingbird
import Testing
@testable import FederateServer

/// The callback route against a live dev provider: flows found by their `state`, several
/// at once; forged and unknown callbacks refused without touching them; errors sent back
/// to the app by code.
@Suite("Callbacks", .serialized)
struct CallbackTests {
    /// A server with one generic dev provider (whose picker the browser answers), and a browser.
    static func withServer(
        configure: (inout DevClient) -> Void = { _ in },
        _ body: (_ origin: String, _ browser: TestBrowser, _ dev: DevProvider) async throws -> Void
    ) async throws {
        var devConfiguration = FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback")
        devConfiguration.autoApproveSubject = nil
        for index in devConfiguration.clients.indices { configure(&devConfiguration.clients[index]) }
        let dev = try await DevProvider.start(configuration: devConfiguration)
        defer { Task { try? await dev.stop() } }
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
        ]
        try await RoutesServer.run(providers: providers, accounts: AccountService(store: InMemoryAccountStore())) { origin in
            try await body(origin, TestBrowser(), dev)
        }
    }

    static func pendingCookies(_ browser: TestBrowser) -> [String] {
        browser.cookieNames.filter { $0.hasPrefix(SessionCookies.pendingPrefix) }.sorted()
    }

    @Test func twoTabsBothComplete() async throws {
        try await Self.withServer { origin, browser, _ in
            let first = try await MultiInstanceTests.callbackURL(browser, start: origin + "/auth/dev/start?returnTo=/first", user: "alice")
            let second = try await MultiInstanceTests.callbackURL(
                browser, start: origin + "/auth/dev/start?returnTo=/second", user: "alice")
            #expect(Self.pendingCookies(browser).count == 2)
            // The second tab finishes first; the first still completes.
            let secondDone = try await browser.send(second)
            #expect(secondDone.status == 303 && secondDone.header("Location") == "/second")
            let firstDone = try await browser.send(first)
            #expect(firstDone.status == 303 && firstDone.header("Location") == "/first", "\(firstDone.header("Location") ?? "")")
            #expect(Self.pendingCookies(browser).isEmpty)
            #expect(try await browser.send(origin + "/me").status == 200)
        }
    }

    @Test func forgedAndUnknownCallbacksLeaveTheFlowsAlone() async throws {
        try await Self.withServer { origin, browser, _ in
            let real = try await MultiInstanceTests.callbackURL(browser, start: origin + "/auth/dev/start", user: "alice")
            let before = Self.pendingCookies(browser)
            // An attacker's link: an error without state, with text meant for the victim.
            let forged = try await browser.send(origin + "/auth/dev/callback?error=access_denied&error_description=Call+0800+now")
            #expect(forged.status == 303 && forged.header("Location") == "/?error=state_mismatch")
            #expect(!String(decoding: forged.body, as: UTF8.self).contains("0800"))
            // A state no flow of this browser has.
            let unknown = try await browser.send(origin + "/auth/dev/callback?code=abc&state=not-a-flow-of-yours")
            #expect(unknown.header("Location") == "/?error=state_mismatch")
            #expect(Self.pendingCookies(browser) == before)
            // The real flow still completes.
            #expect(try await browser.send(real).header("Location") == "/")
        }
    }

    @Test func providerErrorsComeBackAsProviderErrorWithoutTheirText() async throws {
        try await Self.withServer { origin, browser, dev in
            let start = try await browser.send(origin + "/auth/dev/start?returnTo=/after")
            let authorize = try #require(start.header("Location"))
            let query = String(authorize.drop { $0 != "?" }.dropFirst())
            let state = try #require(try FormURLEncoding.decode(query)["state"])
            let denied = try await browser.send(
                origin + "/auth/dev/callback?"
                    + FormURLEncoding.encode([
                        ("error", "access_denied"), ("error_description", "Call 0800 now"), ("state", state), ("iss", dev.issuer),
                    ]))
            #expect(denied.status == 303)
            #expect(denied.header("Location") == "/after?error=provider_error&provider_error=access_denied")
            #expect(Self.pendingCookies(browser).isEmpty)  // this flow is over
        }
    }

    @Test func atMostFourFlowsAreKept() async throws {
        try await Self.withServer { origin, browser, _ in
            var names: [String] = []
            for _ in 0..<6 {
                _ = try await browser.send(origin + "/auth/dev/start")
                names = Self.pendingCookies(browser)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(names.count == SessionCookies.maximumPendingFlows)
        }
    }

    /// A provider that releases email and profile only at UserInfo (OpenID Connect Core §5.4):
    /// the account still gets them.
    @Test func userInfoFillsWhatTheIDTokenLacks() async throws {
        try await Self.withServer(configure: { $0.minimalIDTokens = true }) { origin, browser, _ in
            let callback = try await MultiInstanceTests.callbackURL(browser, start: origin + "/auth/dev/start", user: "alice")
            #expect(try await browser.send(callback).header("Location") == "/")
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["email"] == "alice@example.com" && me["email_verified"] == true && me["display_name"] == "Alice Example")
        }
    }

    /// UserInfo for another subject than the ID token's ends the sign-in.
    @Test func userInfoForAnotherSubjectIsRefused() async throws {
        try await Self.withServer(configure: { $0.faults.insert(.wrongUserInfoSubject) }) { origin, browser, _ in
            let callback = try await MultiInstanceTests.callbackURL(browser, start: origin + "/auth/dev/start", user: "alice")
            #expect(try await browser.send(callback).header("Location") == "/?error=userinfo_subject_mismatch")
            #expect(try await browser.send(origin + "/me").status == 401)
        }
    }

    /// Signing out of a session that came from a provider with an `end_session_endpoint`
    /// answers with the provider's logout URL (RP-Initiated Logout 1.0).
    @Test func signOutReturnsTheProvidersLogoutURL() async throws {
        try await Self.withServer { origin, browser, dev in
            let callback = try await MultiInstanceTests.callbackURL(browser, start: origin + "/auth/dev/start", user: "alice")
            _ = try await browser.send(callback)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            let csrf = try #require(me["csrf_token"]?.stringValue)
            let signOut = try await browser.send(
                origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            let url = try #require(try JSONParser().parseObject(signOut.body)["end_session_url"]?.stringValue)
            #expect(url.hasPrefix(dev.baseURL) && url.contains("client_id=dev-client"), "\(url)")
        }
    }
}
