import Federate
import FederateHummingbird
import FederateTestSupport
import Foundation
import Testing

/// The passkey routes on a live server: the ceremonies through HTTP with a software
/// authenticator, the challenge in an HttpOnly cookie bound to its session, same-site only,
/// rate limited, and off without a passkey configuration.
@Suite("Passkey routes", .serialized)
struct PasskeyRoutesTests {
    static let webOrigin = "https://app.example"

    static func accounts() throws -> AccountService {
        AccountService(
            store: InMemoryAccountStore(),
            configuration: AccountServiceConfiguration(
                passkeys: try WebAuthnConfiguration(relyingPartyID: "app.example", relyingPartyName: "App", allowedOrigins: [webOrigin])))
    }

    static func challenge(_ options: Federate.HTTPResponse) throws -> [UInt8] {
        let json = try JSONParser().parseObject(options.body)
        let text = try #require(json["challenge"]?.stringValue)
        return try #require(Base64URL.decode(text))
    }

    @Test func registerSignInListAndRemoveThroughTheRoutes() async throws {
        let (dev, providers) = try await GuestAndMergeRoutesTests.devProvider()
        defer { Task { try? await dev.stop() } }
        let accounts = try Self.accounts()
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let alice = TestBrowser()
            _ = try await alice.navigate(origin + "/auth/dev/start?returnTo=/", origin: origin)
            let me = try JSONParser().parseObject(try await alice.send(origin + "/me").body)
            let uid = try #require(me["uid"]?.stringValue)
            let headers = [("Origin", origin), ("X-CSRF-Token", try #require(me["csrf_token"]?.stringValue))]
            // Without the CSRF token: refused.
            #expect(try await alice.send(origin + "/me/passkeys/options", method: "POST", headers: [("Origin", origin)]).status == 403)
            let options = try await alice.send(origin + "/me/passkeys/options", method: "POST", headers: headers)
            #expect(options.status == 200)
            #expect(alice.cookie("federate_passkey") != nil)
            let software = SoftwarePasskey.es256(userHandle: Array(uid.utf8))
            let registration = software.registrationJSON(
                .registration(challenge: try Self.challenge(options), origin: Self.webOrigin, rpID: "app.example"))
            let added = try await alice.send(
                origin + "/me/passkeys?name=Laptop", method: "POST", body: String(decoding: registration, as: UTF8.self), headers: headers)
            #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
            #expect(alice.cookie("federate_passkey") == nil, "the ceremony's cookie is spent")
            let listed = try JSONParser().parseObject(try await alice.send(origin + "/me/passkeys").body)
            let id = try #require(listed["passkeys"]?.arrayValue?.first?["id"]?.stringValue)
            #expect(Base64URL.decode(id) == software.credentialID)
            #expect(!String(decoding: try await alice.send(origin + "/me/passkeys").body, as: UTF8.self).contains("public"))

            // Signed out, another browser signs in with the passkey: same-site only.
            let phone = TestBrowser()
            #expect(try await phone.send(origin + "/auth/passkey/options", method: "POST").status == 403, "no Origin")
            #expect(
                try await phone.send(origin + "/auth/passkey/options", method: "POST", headers: [("Origin", "https://evil.example")])
                    .status == 403)
            let signInOptions = try await phone.send(origin + "/auth/passkey/options", method: "POST", headers: [("Origin", origin)])
            let assertion = String(
                decoding: software.assertionJSON(
                    .authentication(
                        challenge: try Self.challenge(signInOptions), origin: Self.webOrigin, rpID: "app.example",
                        userHandle: software.userHandle)),
                as: UTF8.self)
            let signedIn = try await phone.send(origin + "/auth/passkey", method: "POST", body: assertion, headers: [("Origin", origin)])
            #expect(signedIn.status == 200, "\(String(decoding: signedIn.body, as: UTF8.self))")
            #expect(try JSONParser().parseObject(try await phone.send(origin + "/me").body)["uid"] == .string(uid))
            // The same ceremony again: its challenge cookie is gone, and the challenge is spent.
            let replay = try await phone.send(origin + "/auth/passkey", method: "POST", body: assertion, headers: [("Origin", origin)])
            let replayError = try JSONParser().parseObject(replay.body)["error"]
            #expect(replay.status == 400 && replayError == "webauthn_challenge_mismatch")

            // Removing: alice still has the dev provider.
            let removed = try await alice.send(origin + "/me/passkeys/" + id, method: "DELETE", headers: headers)
            #expect(removed.status == 204)
            let gone = try await alice.send(origin + "/me/passkeys/" + id, method: "DELETE", headers: headers)
            let goneError = try JSONParser().parseObject(gone.body)["error"]
            #expect(gone.status == 404 && goneError == "passkey_not_found")
        }
    }

    /// A ceremony's challenge belongs to the session that asked for it: another session's
    /// response does not spend it.
    @Test func aRegistrationChallengeIsBoundToItsSession() async throws {
        let (dev, providers) = try await GuestAndMergeRoutesTests.devProvider()
        defer { Task { try? await dev.stop() } }
        try await RoutesServer.run(providers: providers, accounts: try Self.accounts()) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start?returnTo=/", origin: origin)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            let headers = [("Origin", origin), ("X-CSRF-Token", try #require(me["csrf_token"]?.stringValue))]
            let options = try await browser.send(origin + "/me/passkeys/options", method: "POST", headers: headers)
            let kept = try #require(browser.cookie("federate_passkey"))
            // Signed out and in again: a new session; the old ceremony's cookie does not open for it.
            let before = browser.cookie("federate_session")
            _ = try await browser.send(origin + "/auth/signout", method: "POST", headers: headers)
            _ = try await browser.navigate(origin + "/auth/dev/start?returnTo=/", origin: origin)
            #expect(browser.cookie("federate_session") != nil && browser.cookie("federate_session") != before)
            browser.setCookie("federate_passkey", kept)
            let fresh = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            let software = SoftwarePasskey.es256(userHandle: Array(try #require(me["uid"]?.stringValue).utf8))
            let registration = software.registrationJSON(
                .registration(challenge: try Self.challenge(options), origin: Self.webOrigin, rpID: "app.example"))
            let refused = try await browser.send(
                origin + "/me/passkeys", method: "POST", body: String(decoding: registration, as: UTF8.self),
                headers: [("Origin", origin), ("X-CSRF-Token", try #require(fresh["csrf_token"]?.stringValue))])
            let refusedError = try JSONParser().parseObject(refused.body)["error"]
            #expect(refused.status == 400 && refusedError == "webauthn_challenge_mismatch")
        }
    }

    @Test func anonymousPasskeyRequestsAreRateLimitedAndOffWithoutConfiguration() async throws {
        let (dev, providers) = try await GuestAndMergeRoutesTests.devProvider()
        defer { Task { try? await dev.stop() } }
        try await RoutesServer.run(
            providers: providers, accounts: try Self.accounts(),
            configure: { $0.passkeyRateLimit = RateLimit(burst: 2, interval: .seconds(3600)) }
        ) { origin in
            let browser = TestBrowser()
            for _ in 0..<2 {
                #expect(
                    try await browser.send(origin + "/auth/passkey/options", method: "POST", headers: [("Origin", origin)]).status == 200)
            }
            let limited = try await browser.send(origin + "/auth/passkey/options", method: "POST", headers: [("Origin", origin)])
            #expect(limited.status == 429 && limited.headers.contains { $0.name.lowercased() == "retry-after" })
        }
        try await RoutesServer.run(providers: providers, accounts: AccountService(store: InMemoryAccountStore())) { origin in
            let off = try await TestBrowser().send(origin + "/auth/passkey/options", method: "POST", headers: [("Origin", origin)])
            #expect(off.status == 404)
        }
    }
}
