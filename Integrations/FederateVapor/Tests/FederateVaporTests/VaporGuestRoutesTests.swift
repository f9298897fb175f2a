import Federate
import FederateVapor
import Foundation
import Testing
import Vapor
import VaporTesting

/// `POST /auth/guest` and `POST /me/merge` through FederateVapor, as FederateHummingbird serves
/// them (`GuestAndMergeRoutesTests`): guests only when allowed and same-site, never over a
/// valid session; a guest's link upgrades it and rotates its cookie; a refused link leaves the
/// merge ticket in an HttpOnly cookie that `/me/merge` spends.
@Suite("Vapor: guest and merge routes", .serialized)
struct VaporGuestRoutesTests {
    @Test func guestsAreOffByDefault() async throws {
        try await withFederateApp { app, _, _ in
            let off = try await TestBrowser(app: app).send(.POST, "/auth/guest", headers: [("Origin", testOrigin)])
            #expect(off.status == 404)
        }
    }

    @Test func guestsLinkAndMergeThroughTheRoutes() async throws {
        try await withFederateApp(allowsGuests: true) { app, configuration, _ in
            let accounts = configuration.accounts
            let browser = TestBrowser(app: app)
            #expect(try await browser.send(.POST, "/auth/guest", headers: [("Origin", "https://evil.example")]).status == 403)
            #expect(try await browser.send(.POST, "/auth/guest").status == 403, "no Origin or Referer")
            let created = try await browser.send(.POST, "/auth/guest", headers: [("Origin", testOrigin)])
            #expect(created.status == 200 && created.json["guest"] == true, "\(created.text)")
            let guestToken = try #require(browser.cookie("federate_session"))
            let me = try await browser.send(.GET, "/me")
            #expect(me.json["guest"] == true)
            let csrf = try #require(me.json["csrf_token"]?.stringValue)
            let again = try await browser.send(.POST, "/auth/guest", headers: [("Origin", testOrigin)])
            #expect(again.status == 409 && again.json["error"] == "already_signed_in")
            let noTicket = try await browser.send(.POST, "/me/merge", headers: [("Origin", testOrigin), ("X-CSRF-Token", csrf)])
            #expect(noTicket.status == 400 && noTicket.json["error"] == "invalid_merge_ticket")

            // The guest links the dev provider (alice): same account, a full session in a new cookie.
            _ = try await browser.navigate("/auth/dev/start?intent=link&returnTo=/", pick: "alice@example.com")
            let upgraded = try await browser.send(.GET, "/me")
            #expect(upgraded.json["uid"] == me.json["uid"] && upgraded.json["guest"] == false && upgraded.json["recent_login"] == true)
            #expect(browser.cookie("federate_session") != guestToken)
            await #expect(throws: FederateError.self) { try await accounts.verifySession(guestToken) }

            // A second guest links alice too: refused, with the ticket in an HttpOnly cookie.
            let second = TestBrowser(app: app)
            _ = try await second.send(.POST, "/auth/guest", headers: [("Origin", testOrigin)])
            let secondUID = try #require(try await second.send(.GET, "/me").json["uid"]?.stringValue)
            // Only a navigation from the app's own pages starts a link.
            let crossSite = try await second.send(
                .GET, "/auth/dev/start?intent=link&returnTo=/", headers: [("Sec-Fetch-Site", "cross-site"), ("Referer", testOrigin + "/")])
            #expect(crossSite.status == 403 && crossSite.json["error"] == "csrf_failed")
            let refused = try await second.send(
                .GET, "/auth/dev/start?intent=link&returnTo=/", headers: [("Sec-Fetch-Site", "same-origin")])
            let callback = try await second.send(.GET, try #require(refused.header("Location")) + "&user=alice@example.com")
            let back = try await second.send(.GET, try #require(callback.header("Location")))
            #expect(back.status == 303 && back.header("Location") == "/?error=credential_already_in_use", "\(back.headers)")
            #expect(back.headers("Set-Cookie").contains { $0.hasPrefix("federate_merge=") && $0.contains("HttpOnly") })
            #expect(second.cookie("federate_merge") != nil)

            // Signed in as alice (recent), the merge brings the second guest in.
            _ = try await second.navigate("/auth/dev/start?returnTo=/")
            let alice = try await second.send(.GET, "/me")
            let merged = try await second.send(
                .POST, "/me/merge",
                headers: [("Origin", testOrigin), ("X-CSRF-Token", try #require(alice.json["csrf_token"]?.stringValue))])
            #expect(merged.status == 200, "\(merged.text)")
            #expect(merged.json["uid"] == me.json["uid"] && merged.json["merged_uid"] == .string(secondUID))
            #expect(second.cookie("federate_merge") == nil)
            await #expect(throws: FederateError.self) { try await accounts.user(uid: secondUID) }
        }
    }
}
