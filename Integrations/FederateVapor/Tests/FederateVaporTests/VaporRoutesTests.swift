import Federate
import FederateVapor
import Foundation
import Testing
import Vapor
import VaporTesting

/// FederateVapor's routes end to end: the browser's sign-in through a real dev provider over
/// loopback, linking a second provider, the JSON API with its CSRF check, sign-out, and the
/// providers' failures: FederateServer's answers, which FederateHummingbird gives too.
@Suite("Vapor: sign-in routes", .serialized)
struct VaporRoutesTests {
    @Test func signInLinkUnlinkAndSignOut() async throws {
        try await withFederateApp { app, _, _ in
            let browser = TestBrowser(app: app)
            let signedIn = try await browser.navigate("/auth/dev/start?returnTo=/welcome")
            #expect(signedIn.status == 404, "the app has no /welcome page: the callback redirected there")
            #expect(browser.cookie("federate_session") != nil)
            let me = try await browser.send(.GET, "/me")
            #expect(me.status == 200 && me.json["email"] == "alice@example.com", "\(me.text)")
            #expect(me.json["providers"]?.arrayValue?.count == 1)
            let csrf = try #require(me.json["csrf_token"]?.stringValue)

            _ = try await browser.navigate("/auth/corp/start?intent=link", pick: "alice@example.com")
            let linked = try await browser.send(.GET, "/me")
            #expect(
                linked.json["providers"]?.arrayValue?.compactMap { $0.objectValue?["provider_id"]?.stringValue }.sorted() == [
                    "oidc.corp", "oidc.dev",
                ])

            // Cookie-authenticated changes need this site's Origin and the CSRF header.
            let forged = try await browser.send(.DELETE, "/me/providers/oidc.corp", headers: [("Origin", "https://evil.example")])
            #expect(forged.status == 403 && forged.json["error"] == "csrf_failed")
            let unlinked = try await browser.send(
                .DELETE, "/me/providers/oidc.corp", headers: [("Origin", testOrigin), ("X-CSRF-Token", csrf)])
            #expect(unlinked.status == 200 && unlinked.json["providers"] == ["oidc.dev"], "\(unlinked.text)")
            let last = try await browser.send(.DELETE, "/me/providers/oidc.dev", headers: [("Origin", testOrigin), ("X-CSRF-Token", csrf)])
            #expect(last.status == 400 && last.json["error"] == "last_provider", "\(last.text)")

            let out = try await browser.send(.POST, "/auth/signout", headers: [("Origin", testOrigin), ("X-CSRF-Token", csrf)])
            #expect(out.status == 200 && out.json["signed_out"] == true)
            #expect(browser.cookie("federate_session") == nil)
            #expect(try await browser.send(.GET, "/me").status == 401)
        }
    }

    @Test func callbacksThatMustNotBeTrusted() async throws {
        try await withFederateApp { app, _, providers in
            let browser = TestBrowser(app: app)
            // No flow of this browser has the state: to / with the code, flows untouched.
            let forged = try await browser.send(.GET, "/auth/dev/callback?code=x&state=unknown")
            #expect(forged.status == 303 && forged.header("Location") == "/?error=state_mismatch")
            // The provider's refusal: its code, never its text.
            let start = try await browser.send(.GET, "/auth/dev/start?returnTo=/after")
            #expect(start.status == 302)
            let location = try #require(start.header("Location"))
            let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
            let refused = try await browser.send(
                .GET,
                "/auth/dev/callback?"
                    + formEncoded([
                        ("error", "access_denied"), ("error_description", "<b>Call 0800 now</b>"), ("state", state),
                        ("iss", providers[0].issuer),
                    ]))
            #expect(refused.status == 303 && refused.header("Location") == "/after?error=provider_error&provider_error=access_denied")
            // Unknown provider, bad intent, an open redirect refused.
            #expect(try await browser.send(.GET, "/auth/nope/start").json["error"] == "unknown_provider")
            #expect(try await browser.send(.GET, "/auth/dev/start?intent=admin").status == 400)
            let evil = try await browser.send(.GET, "/auth/dev/start?returnTo=//evil.example/x")
            #expect(evil.status == 302)
        }
    }

    @Test func theRoutesAnswerWhatFederateServerAnswers() async throws {
        // One response for one input, whatever the framework: both integrations hand the
        // request to FederateServer's endpoints and return what they answer.
        try await withFederateApp { app, configuration, _ in
            let endpoints = FederateEndpoints(configuration: configuration)
            let start = try #require(endpoints.routes.first { $0.method == .get && $0.path == ["auth", ":provider", "start"] })
            let direct = await start.respond(
                to: ServerRequest(method: .get, path: "/auth/dev/start", query: "intent=link"), parameters: ["provider": "dev"])
            let viaVapor = try await TestBrowser(app: app).send(.GET, "/auth/dev/start?intent=link")
            #expect(viaVapor.status == Int(direct.status.code) && viaVapor.body == direct.body)
            #expect(viaVapor.header("Content-Type") == direct.headers[.contentType])
        }
    }
}
