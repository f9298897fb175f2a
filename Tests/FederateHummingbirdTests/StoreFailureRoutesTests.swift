import Federate
import FederateApple
@testable import FederateDevProvider
import FederateGoogle
import FederateHummingbird
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing
@testable import FederateAccounts

/// The routes when the account store fails once (a real in-memory store with one injected
/// fault): an idempotent delivery (Google RISC, Apple's notifications) answers 5xx and is
/// applied when the provider retries it; a back-channel logout token is consumed first, so
/// its retry is refused as a replay; a session the store cannot check is 503, not 401.
@Suite("Routes and a failing store", .serialized)
struct StoreFailureRoutesTests {
    static let prefix = "https://schemas.openid.net/secevent/risc/event-type/"

    @Test func anIdempotentDeliveryTheStoreFailedIsAppliedOnRetry() async throws {
        let time = TestClock()
        var googleConfiguration = FederateRoutesTests.devConfiguration(.google, path: "/auth/google/callback", clock: time.clock)
        googleConfiguration.autoApproveSubject = nil
        let google = try await DevProvider.start(configuration: googleConfiguration)
        let apple = try await DevProvider.start(
            configuration: FederateRoutesTests.devConfiguration(.apple, path: "/auth/apple/callback", clock: time.clock))
        defer { Task { for provider in [google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        let store = FaultInjectingStore(InMemoryAccountStore())
        let accounts = AccountService(store: store, clock: time.clock)
        let cache = ProviderCache(httpClient: PatientTransport.shared, clock: time.clock)
        let googleClientID = "dev-google.apps.googleusercontent.com"
        let providers: [String: any SignInProvider] = [
            "google": GoogleProvider(
                clientID: googleClientID, clientSecret: "dev-google-secret", endpoints: .at(google.baseURL), cache: cache),
            "apple": try AppleProvider(
                servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM,
                endpoints: .at(apple.baseURL), cache: cache),
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            // RISC account-disabled: the store fails while applying it.
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/google/start", origin: origin, pick: "110248495921238986422")
            let uid = try #require(try JSONParser().parseObject(try await browser.send(origin + "/me").body)["uid"]?.stringValue)
            let subject = try #require(try await accounts.user(uid: uid).identity(providerID: "google.com")?.subject)
            let risc = origin + "/auth/google/risc"
            store.failNext("update_user")
            let failed = try await google.sendSecurityEvent(
                Self.prefix + "account-disabled", subject: subject, audience: googleClientID, to: risc)
            #expect(failed.status == 503)
            #expect(try await accounts.user(uid: uid).disabled == false)
            // Google delivers it again (same `jti`): now it is applied.
            let retried = try await google.sendSecurityEvent(
                Self.prefix + "account-disabled", subject: subject, audience: googleClientID, tokenID: failed.tokenID, to: risc)
            #expect(retried.status == 202)
            #expect(try await accounts.user(uid: uid).disabled)
            // Once applied and consumed, a replay is acknowledged without effect.
            try await store.base.updateUser(uid: uid, UserUpdate(disabled: false))
            let replayed = try await google.sendSecurityEvent(
                Self.prefix + "account-disabled", subject: subject, audience: googleClientID, tokenID: failed.tokenID, to: risc)
            #expect(replayed.status == 202)
            #expect(try await accounts.user(uid: uid).disabled == false)
            // The store failing to record a delivery it applied: 503, and the retry is acknowledged.
            store.failNext("consume_event_id")
            let unrecorded = try await google.sendSecurityEvent(
                Self.prefix + "account-disabled", subject: subject, audience: googleClientID, to: risc)
            #expect(unrecorded.status == 503)
            #expect(try await accounts.user(uid: uid).disabled)
            let recorded = try await google.sendSecurityEvent(
                Self.prefix + "account-disabled", subject: subject, audience: googleClientID, tokenID: unrecorded.tokenID, to: risc)
            #expect(recorded.status == 202)

            // Apple email-disabled: the store fails while applying it; Apple's retry applies it.
            let appleBrowser = TestBrowser()
            _ = try await appleBrowser.navigate(origin + "/auth/apple/start", origin: origin)
            let appleUID = try #require(try JSONParser().parseObject(try await appleBrowser.send(origin + "/me").body)["uid"]?.stringValue)
            let before = try #require(try await accounts.user(uid: appleUID).identity(providerID: "apple.com"))
            let appleSubject = before.subject
            let notifications = origin + "/auth/apple/notifications"
            store.failNext("update_identity_email")
            let notified = try await apple.sendAppleNotification(
                "email-disabled", subject: appleSubject, clientID: "com.example.dev.web", email: "relay@privaterelay.appleid.com",
                to: notifications)
            #expect(notified.status == 503)
            let unchanged = try #require(try await accounts.user(uid: appleUID).identity(providerID: "apple.com"))
            #expect(unchanged.email == before.email && unchanged.emailVerified == before.emailVerified)
            let renotified = try await apple.sendAppleNotification(
                "email-disabled", subject: appleSubject, clientID: "com.example.dev.web", email: "relay@privaterelay.appleid.com",
                tokenID: notified.tokenID, to: notifications)
            #expect(renotified.status == 200)
            let relay = try #require(try await accounts.user(uid: appleUID).identity(providerID: "apple.com"))
            #expect(relay.email == "relay@privaterelay.appleid.com" && relay.emailVerified == false)
        }
    }

    @Test func aLogoutTokenIsConsumedBeforeItIsApplied() async throws {
        let time = TestClock()
        var configuration = FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback", clock: time.clock)
        configuration.autoApproveSubject = nil
        let generic = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await generic.stop() } }
        let store = FaultInjectingStore(InMemoryAccountStore())
        let accounts = AccountService(store: store, clock: time.clock)
        let cache = ProviderCache(httpClient: PatientTransport.shared, clock: time.clock)
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin, pick: "alice")
            let sid = try #require(generic.providerSessionID(for: "alice"))
            let token = try generic.backChannelLogoutToken(clientID: "dev-client", subject: nil, sessionID: sid)
            store.failNext("end_sessions")
            #expect(try await generic.sendBackChannelLogout(token, to: origin + "/auth/dev/backchannel-logout") == 503)
            #expect(store.callCount("consume_event_id") == 1)
            // Single use (Back-Channel Logout 1.0 §2.6): the retry of a consumed token is a replay.
            #expect(try await generic.sendBackChannelLogout(token, to: origin + "/auth/dev/backchannel-logout") == 400)
            #expect(try await browser.send(origin + "/me").status == 200)
        }
    }

    @Test func aSessionTheStoreCannotCheckIs503NotUnauthorized() async throws {
        let time = TestClock()
        var configuration = FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback", clock: time.clock)
        configuration.autoApproveSubject = nil
        let generic = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await generic.stop() } }
        let store = FaultInjectingStore(InMemoryAccountStore())
        let accounts = AccountService(store: store, clock: time.clock)
        let cache = ProviderCache(httpClient: PatientTransport.shared, clock: time.clock)
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin, pick: "alice")
            #expect(try await browser.send(origin + "/me").status == 200)
            for path in ["/me", "/auth/dev/start?intent=link"] {
                time.advance(by: .seconds(2))  // past the one-second revocation check: the store is asked
                store.failNext("revocation_epoch")
                let response = try await browser.send(origin + path, headers: [("Sec-Fetch-Site", "same-origin")])
                let body = (try? JSONParser().parseObject(response.body)) ?? [:]
                #expect(
                    response.status == 503 && response.header("Retry-After") == "2" && body["error"] == "store_unavailable",
                    "\(path): \(response.status) \(body)")
            }
            #expect(try await browser.send(origin + "/me").status == 200)
        }
    }
}
