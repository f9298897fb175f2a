import Federate
import FederateDevProvider
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// `POST /auth/guest` and `POST /me/merge` on a live server: guests only when allowed and
/// same-site, never over a valid session; a guest's link rotates its cookie to a full session;
/// a refused link leaves the merge ticket in an HttpOnly cookie that `/me/merge` spends.
@Suite("Guest and merge routes", .serialized)
struct GuestAndMergeRoutesTests {
    /// The generic dev provider (alice approved at once) as the routes' provider `dev`.
    static func devProvider() async throws -> (DevProvider, [String: any SignInProvider]) {
        let dev = try await DevProvider.start(configuration: FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback"))
        let provider = try OIDCProvider(
            id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        return (dev, ["dev": provider])
    }

    @Test func guestsLinkAndMergeThroughTheRoutes() async throws {
        let (dev, providers) = try await Self.devProvider()
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let off = try await TestBrowser().send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            #expect(off.status == 404, "off by default")
        }
        try await RoutesServer.run(providers: providers, accounts: accounts, allowsGuests: true) { origin in
            let browser = TestBrowser()
            #expect(
                try await browser.send(origin + "/auth/guest", method: "POST", headers: [("Origin", "https://evil.example")]).status == 403)
            #expect(try await browser.send(origin + "/auth/guest", method: "POST").status == 403, "no Origin or Referer")
            let created = try await browser.send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            #expect(created.status == 200)
            let guestToken = try #require(browser.cookie("federate_session"))
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["guest"] == true)
            let csrf = try #require(me["csrf_token"]?.stringValue)
            // Not over a valid session.
            let again = try await browser.send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            let againError = try JSONParser().parseObject(again.body)["error"]
            #expect(again.status == 409 && againError == "already_signed_in")
            // No merge in progress.
            let noTicket = try await browser.send(
                origin + "/me/merge", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            let noTicketError = try JSONParser().parseObject(noTicket.body)["error"]
            #expect(noTicket.status == 400 && noTicketError == "invalid_merge_ticket")

            // The guest links the dev provider (alice): same account, a full session in a new cookie.
            _ = try await browser.navigate(origin + "/auth/dev/start?intent=link&returnTo=/", origin: origin, pick: "alice@example.com")
            let upgraded = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(upgraded["uid"] == me["uid"] && upgraded["guest"] == false && upgraded["recent_login"] == true)
            #expect(browser.cookie("federate_session") != guestToken)
            await expectError(.sessionRevoked) { try await accounts.verifySession(guestToken) }

            // A second guest links alice too: refused, with the ticket in an HttpOnly cookie.
            let second = TestBrowser()
            _ = try await second.send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            let secondUID = try #require(try JSONParser().parseObject(try await second.send(origin + "/me").body)["uid"]?.stringValue)
            let refused = try await second.navigate(
                origin + "/auth/dev/start?intent=link&returnTo=/", origin: origin, pick: "alice@example.com")
            #expect(second.history.last?.contains("error=credential_already_in_use") == true, "\(second.history)")
            _ = refused
            #expect(second.cookie("federate_merge") != nil)
            // Signed in as alice (recent), the merge brings the second guest in.
            _ = try await second.navigate(origin + "/auth/dev/start?returnTo=/", origin: origin)
            let alice = try JSONParser().parseObject(try await second.send(origin + "/me").body)
            let merged = try await second.send(
                origin + "/me/merge", method: "POST",
                headers: [("Origin", origin), ("X-CSRF-Token", try #require(alice["csrf_token"]?.stringValue))])
            #expect(merged.status == 200, "\(String(decoding: merged.body, as: UTF8.self))")
            let answer = try JSONParser().parseObject(merged.body)
            #expect(answer["uid"] == me["uid"] && answer["merged_uid"] == .string(secondUID))
            #expect(second.cookie("federate_merge") == nil)
            await expectError(.userNotFound) { try await accounts.user(uid: secondUID) }
        }
    }
}

extension GuestAndMergeRoutesTests {
    /// A link or reauthentication acts for the signed-in account: only a navigation from this
    /// site's own pages starts one. A page of another site cannot, with or without `Referer`
    /// (browsers send `Sec-Fetch-Site: cross-site` or `same-site` from it, and no page can set
    /// it), and a `returnTo` with a fragment is not kept (the callback's parameters would land
    /// after the `#`).
    @Test func linkAndReauthenticateStartOnlyFromThisSite() async throws {
        let (dev, providers) = try await Self.devProvider()
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin, pick: "alice@example.com")
            let session = try #require(browser.cookie("federate_session"))
            for intent in ["link", "reauthenticate"] {
                let start = origin + "/auth/dev/start?intent=\(intent)&returnTo=/"
                for site in [nil, "cross-site", "same-site", "none", "SAME-ORIGIN"] {
                    var headers: [(String, String)] = [("Referer", origin + "/")]
                    if let site { headers.append(("Sec-Fetch-Site", site)) }
                    let refused = try await browser.send(start, headers: headers)
                    let code = try JSONParser().parseObject(refused.body)["error"]
                    #expect(refused.status == 403 && code == "csrf_failed", "\(intent), \(site ?? "no Sec-Fetch-Site"): \(refused.status)")
                    #expect(refused.header("Location") == nil && refused.header("Set-Cookie") == nil, "no flow was started")
                }
                let started = try await browser.send(start, headers: [("Sec-Fetch-Site", "same-origin")])
                #expect(started.status == 302 && started.header("Location")?.hasPrefix(dev.issuer) == true, "\(intent): \(started.status)")
                #expect(started.header("Location")?.contains("prompt=login") == true)
                #expect(started.header("Location")?.contains("max_age=0") == true)
            }
            #expect(browser.cookie("federate_session") == session, "nothing acted for the account")
            // A sign-in may still start from anywhere (a "Sign in with" link on another site).
            #expect(try await TestBrowser().send(origin + "/auth/dev/start", headers: [("Sec-Fetch-Site", "cross-site")]).status == 302)

            // `returnTo` with a fragment falls back to `/`: a refusal's `error=` never lands after a `#`.
            let fragment = try await browser.navigate(
                origin + "/auth/dev/start?intent=link&returnTo=" + FormURLEncoding.escape("/?merge=1#"), origin: origin,
                pick: "alice@example.com")
            _ = fragment
            let landed = try #require(browser.history.last)
            #expect(landed.hasPrefix(origin + "/?error=provider_already_linked") && !landed.contains("#"), "\(landed)")
        }
    }

    /// `POST {auth}/guest` is limited per client: a script that sets `Origin` and spoofs
    /// `X-Forwarded-For` gets 429 with `Retry-After` past the burst, whatever the header says;
    /// behind a trusted proxy, the header names the client.
    @Test func aGuestFloodIsLimitedPerClientWhateverItsForwardingHeaders() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(
            providers: [:], accounts: accounts, allowsGuests: true,
            configure: { $0.guestRateLimit = RateLimit(burst: 3, interval: .seconds(3600)) }
        ) { origin in
            var statuses: [Int] = []
            var retryAfter: String?
            for index in 0..<8 {
                let response = try await TestBrowser().send(
                    origin + "/auth/guest", method: "POST",
                    headers: [("Origin", origin), ("X-Forwarded-For", "198.51.100.\(index)"), ("X-Real-IP", "203.0.113.\(index)")])
                statuses.append(response.status)
                if response.status == 429 {
                    retryAfter = response.header("Retry-After")
                    #expect(try JSONParser().parseObject(response.body)["error"] == "rate_limited")
                }
            }
            #expect(statuses == [200, 200, 200, 429, 429, 429, 429, 429], "\(statuses)")
            #expect(retryAfter.flatMap(Int.init).map { $0 > 0 && $0 <= 3600 } == true, "\(String(describing: retryAfter))")
        }
        // Behind a trusted proxy (this test's own address), the last untrusted address counts.
        try await RoutesServer.run(
            providers: [:], accounts: accounts, allowsGuests: true,
            configure: {
                $0.guestRateLimit = RateLimit(burst: 1, interval: .seconds(3600))
                $0.trustedProxies = ["127.0.0.1"]
            }
        ) { origin in
            for client in ["198.51.100.7", "198.51.100.8"] {
                let first = try await TestBrowser().send(
                    origin + "/auth/guest", method: "POST", headers: [("Origin", origin), ("X-Forwarded-For", "10.9.9.9, " + client)])
                let second = try await TestBrowser().send(
                    origin + "/auth/guest", method: "POST", headers: [("Origin", origin), ("X-Forwarded-For", client)])
                #expect(first.status == 200 && second.status == 429, "\(client): \(first.status) \(second.status)")
            }
        }
    }

    /// Sign-out ends a merge in progress: the ticket's cookie is deleted.
    @Test func signOutClearsTheMergeTicket() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(providers: [:], accounts: accounts, allowsGuests: true) { origin in
            let browser = TestBrowser()
            _ = try await browser.send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            let csrf = try #require(try JSONParser().parseObject(try await browser.send(origin + "/me").body)["csrf_token"]?.stringValue)
            browser.setCookie("federate_merge", "mt2.k.ticket")
            let out = try await browser.send(
                origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)])
            #expect(out.status == 200)
            #expect(browser.cookie("federate_merge") == nil)
        }
    }
}

/// Runs `body`, expecting a ``FederateError`` with `code`.
private func expectError<T>(
    _ code: FederateError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as FederateError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
