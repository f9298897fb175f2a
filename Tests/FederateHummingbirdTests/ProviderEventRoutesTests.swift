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

/// Provider events wired to accounts, end to end: the dev providers send back-channel logout
/// tokens, Apple notifications and Google RISC events for real to the server's routes.
@Suite("Provider events", .serialized)
struct ProviderEventRoutesTests {
    @Test func eventsEndSessionsUnlinkAndDisable() async throws {
        // One clock for the providers, the relying party and the accounts, moved by hand.
        let time = TestClock()
        var genericConfiguration = FederateRoutesTests.devConfiguration(.generic, path: "/auth/dev/callback", clock: time.clock)
        genericConfiguration.autoApproveSubject = nil
        let generic = try await DevProvider.start(configuration: genericConfiguration)
        var googleConfiguration = FederateRoutesTests.devConfiguration(.google, path: "/auth/google/callback", clock: time.clock)
        googleConfiguration.autoApproveSubject = nil
        let google = try await DevProvider.start(configuration: googleConfiguration)
        let apple = try await DevProvider.start(
            configuration: FederateRoutesTests.devConfiguration(.apple, path: "/auth/apple/callback", clock: time.clock))
        defer { Task { for provider in [generic, google, apple] { try? await provider.stop() } } }
        let key = try #require(apple.configuration.appleClientKey)
        let store = InMemoryAccountStore()
        let accounts = AccountService(store: store, clock: time.clock)
        let cache = ProviderCache(httpClient: PatientTransport.shared, clock: time.clock)
        let googleClientID = "dev-google.apps.googleusercontent.com"
        let providers: [String: any SignInProvider] = [
            "dev": try OIDCProvider(
                id: "oidc.dev", issuer: generic.issuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache),
            "google": GoogleProvider(
                clientID: googleClientID, clientSecret: "dev-google-secret", endpoints: .at(google.baseURL), cache: cache),
            "apple": try AppleProvider(
                servicesID: "com.example.dev.web", teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM,
                endpoints: .at(apple.baseURL), cache: cache),
        ]
        try await RoutesServer.run(providers: providers, accounts: accounts) { origin in
            func signIn(_ browser: TestBrowser) async throws {
                _ = try await browser.navigate(origin + "/auth/dev/start", origin: origin, pick: "alice")
                #expect(try await browser.send(origin + "/me").status == 200)
            }
            let backChannel = origin + "/auth/dev/backchannel-logout"

            // Logout by sid ends the sessions of that provider session; a replay is refused.
            let laptop = TestBrowser()
            try await signIn(laptop)
            let sid = try #require(generic.providerSessionID(for: "alice"))
            let bySession = try generic.backChannelLogoutToken(clientID: "dev-client", subject: nil, sessionID: sid)
            #expect(try await generic.sendBackChannelLogout(bySession, to: backChannel) == 200)
            #expect(try await laptop.send(origin + "/me").status == 401)
            #expect(try await generic.sendBackChannelLogout(bySession, to: backChannel) == 400)
            generic.endProviderSession(for: "alice")
            // A token for another client, or one that is not a logout token, changes nothing.
            try await signIn(laptop)
            let foreign = try generic.backChannelLogoutToken(clientID: "dev-client", subject: "alice", audience: "another-rp")
            #expect(try await generic.sendBackChannelLogout(foreign, to: backChannel) == 400)
            #expect(try await laptop.send(origin + "/me").status == 200)

            // Logout by sub ends every session of the identity, in every browser.
            let phone = TestBrowser()
            try await signIn(phone)
            time.advance(by: .seconds(1))  // sessions count in whole seconds
            #expect(
                try await generic.sendBackChannelLogout(
                    try generic.backChannelLogoutToken(clientID: "dev-client", subject: "alice"), to: backChannel) == 200)
            #expect(try await laptop.send(origin + "/me").status == 401)
            #expect(try await phone.send(origin + "/me").status == 401)
            time.advance(by: .seconds(1))
            try await signIn(laptop)  // a new sign-in after the logout stands

            // Link Apple; Apple says consent was revoked: Apple is unlinked, the account stays.
            _ = try await laptop.navigate(origin + "/auth/apple/start?intent=link", origin: origin, pick: "alice@example.com")
            let uid = try #require(try JSONParser().parseObject(try await laptop.send(origin + "/me").body)["uid"]?.stringValue)
            let appleSubject = try #require(try await accounts.user(uid: uid).identity(providerID: "apple.com")?.subject)
            // Apple says mail forwarding to the relay address stopped: the identity's email is no longer verified.
            let forwarding = try await apple.sendAppleNotification(
                "email-disabled", subject: appleSubject, clientID: "com.example.dev.web", email: "relay@privaterelay.appleid.com",
                to: origin + "/auth/apple/notifications")
            #expect(forwarding.status == 200)
            let relay = try #require(try await accounts.user(uid: uid).identity(providerID: "apple.com"))
            #expect(relay.email == "relay@privaterelay.appleid.com" && relay.emailVerified == false)
            let revoked = try await apple.sendAppleNotification(
                "consent-revoked", subject: appleSubject, clientID: "com.example.dev.web", to: origin + "/auth/apple/notifications")
            #expect(revoked.status == 200)
            #expect(try await accounts.user(uid: uid).providerIDs == ["oidc.dev"])
            #expect(try await accounts.user(uid: uid).disabled == false)

            // Google RISC: sessions-revoked ends the Google sessions; account-disabled disables the user.
            let googleBrowser = TestBrowser()
            _ = try await googleBrowser.navigate(origin + "/auth/google/start", origin: origin, pick: "110248495921238986422")  // Carol
            let googleUID = try #require(
                try JSONParser().parseObject(try await googleBrowser.send(origin + "/me").body)["uid"]?.stringValue)
            let googleSubject = try #require(try await accounts.user(uid: googleUID).identity(providerID: "google.com")?.subject)
            time.advance(by: .seconds(1))
            let risc = origin + "/auth/google/risc"
            let prefix = "https://schemas.openid.net/secevent/"
            let sessions = try await google.sendSecurityEvent(
                prefix + "risc/event-type/sessions-revoked", subject: googleSubject, audience: googleClientID, to: risc)
            #expect(sessions.status == 202)
            #expect(try await googleBrowser.send(origin + "/me").status == 401)
            let again = try await google.sendSecurityEvent(
                prefix + "risc/event-type/account-disabled", subject: googleSubject, audience: googleClientID, tokenID: sessions.tokenID,
                to: risc)
            #expect(again.status == 202)  // a repeated jti is acknowledged without effect
            #expect(try await accounts.user(uid: googleUID).disabled == false)
            let disabled = try await google.sendSecurityEvent(
                prefix + "risc/event-type/account-disabled", subject: googleSubject, audience: googleClientID, reason: "hijacking", to: risc
            )
            #expect(disabled.status == 202)
            #expect(try await accounts.user(uid: googleUID).disabled)
            let forged = try await google.sendSecurityEvent(
                prefix + "risc/event-type/account-disabled", subject: googleSubject, audience: "someone-else", to: risc)
            #expect(forged.status == 400)
            // No route for a provider that does not send such events.
            #expect(try await laptop.send(origin + "/auth/dev/risc", method: "POST", body: "x").status == 404)
        }
    }
}
