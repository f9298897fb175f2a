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
    @Test func guestsLinkAndMergeThroughTheRoutes() async throws {
        let dev = try await DevProvider.start(configuration: FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback"))
        defer { Task { try? await dev.stop() } }
        let accounts = AccountService(store: InMemoryAccountStore())
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: PatientTransport.shared))
        ]
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
            _ = try await browser.navigate(origin + "/auth/dev/start?intent=link&returnTo=/", origin: origin)
            let upgraded = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(upgraded["uid"] == me["uid"] && upgraded["guest"] == false && upgraded["recent_login"] == true)
            #expect(browser.cookie("federate_session") != guestToken)
            await expectError(.sessionRevoked) { try await accounts.verifySession(guestToken) }

            // A second guest links alice too: refused, with the ticket in an HttpOnly cookie.
            let second = TestBrowser()
            _ = try await second.send(origin + "/auth/guest", method: "POST", headers: [("Origin", origin)])
            let secondUID = try #require(try JSONParser().parseObject(try await second.send(origin + "/me").body)["uid"]?.stringValue)
            let refused = try await second.navigate(origin + "/auth/dev/start?intent=link&returnTo=/", origin: origin)
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
