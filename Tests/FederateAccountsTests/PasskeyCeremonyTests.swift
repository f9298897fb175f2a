import Federate
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// Passkeys as account operations: register (link), sign in, reauthenticate, on every store,
    /// with ceremonies a software authenticator answers; a challenge used once across instances.
    @Suite("Accounts: passkey ceremonies (every store)")
    struct PasskeyCeremonyTests {
        static let origin = "https://app.example"
        static let rpID = "app.example"

        static var configuration: AccountServiceConfiguration {
            get throws {
                AccountServiceConfiguration(
                    passkeys: try WebAuthnConfiguration(relyingPartyID: rpID, relyingPartyName: "App", allowedOrigins: [origin]))
            }
        }

        /// Registers a new ES256 passkey for `session`'s user; the software passkey and what the store holds.
        static func register(
            _ accounts: AccountService, _ session: AccountSession, name: String? = "Laptop"
        ) async throws -> (SoftwarePasskey, Passkey) {
            let options = try await accounts.passkeyRegistrationOptions(session)
            let software = SoftwarePasskey.es256(userHandle: Array(session.uid.utf8))
            let response = try WebAuthnRegistrationResponse(
                json: software.registrationJSON(.registration(challenge: options.challenge.bytes, origin: origin, rpID: rpID)))
            return (software, try await accounts.addPasskey(session, response: response, challenge: options.challenge, name: name))
        }

        /// The software passkey's assertion for `options`, counter `signCount`.
        static func assertion(
            _ software: SoftwarePasskey, _ options: WebAuthnOptions, signCount: UInt32 = 0
        ) throws
            -> WebAuthnAuthenticationResponse
        {
            try assertion(software, challenge: options.challenge, signCount: signCount)
        }

        /// The software passkey's assertion for `challenge`, counter `signCount`.
        static func assertion(
            _ software: SoftwarePasskey, challenge: WebAuthnChallenge, signCount: UInt32 = 0
        ) throws
            -> WebAuthnAuthenticationResponse
        {
            try WebAuthnAuthenticationResponse(
                json: software.assertionJSON(
                    .authentication(
                        challenge: challenge.bytes, origin: origin, rpID: rpID, signCount: signCount, userHandle: software.userHandle)))
        }

        @Test(arguments: StoreKind.allCases)
        func registerSignInAndReauthenticate(kind: StoreKind) async throws {
            try await kind.withService(configuration: try Self.configuration) { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let session = try #require(ann.session)
                let (software, passkey) = try await Self.register(accounts, session)
                #expect(passkey.uid == ann.user.uid && passkey.algorithm == -7 && passkey.name == "Laptop")
                #expect(try await accounts.passkeys(session).map(\.credentialID) == [software.credentialID])

                // Sign in: the passkey's account, a session whose auth_time is now.
                clock.advance(by: .seconds(30))
                let options = try accounts.passkeySignInOptions()
                let response = try Self.assertion(software, options)
                let signedIn = try await accounts.signIn(withPasskey: response, challenge: options.challenge)
                #expect(signedIn.user.uid == ann.user.uid && signedIn.session.authTime == clock.now)
                #expect(signedIn.session.amr.contains("mfa") && signedIn.passkey.lastUsedAt == clock.now)
                #expect(try await accounts.verifySession(signedIn.sessionToken).uid == ann.user.uid)
                #expect(!signedIn.description.contains(signedIn.sessionToken))
                // The same ceremony again: its challenge was consumed.
                await expectError(.webauthnChallengeReplayed) {
                    try await accounts.signIn(withPasskey: response, challenge: options.challenge)
                }

                // Reauthenticate: the old session is no longer recent; a UV assertion makes a fresh one.
                clock.advance(by: .seconds(400))
                await expectError(.requiresRecentLogin) { try accounts.requireRecentLogin(signedIn.session) }
                let again = try await accounts.passkeyReauthenticationOptions(signedIn.session)
                #expect(again.challenge.userVerification == .required)
                let fresh = try await accounts.reauthenticate(
                    signedIn.session, withPasskey: try Self.assertion(software, again), challenge: again.challenge)
                try accounts.requireRecentLogin(fresh.session)
                await expectError(.sessionRevoked) { try await accounts.verifySession(signedIn.sessionToken) }
                // A sign-in challenge (user verification only preferred) does not reauthenticate.
                let weak = try accounts.passkeySignInOptions()
                await expectError(.webauthnUserVerification) {
                    try await accounts.reauthenticate(
                        fresh.session, withPasskey: try Self.assertion(software, weak), challenge: weak.challenge)
                }
                // Another account cannot reauthenticate with Ann's passkey.
                let bob = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "bob")).session)
                await expectError(.passkeyNotFound) { try await accounts.passkeyReauthenticationOptions(bob) }
                let issued = try accounts.passkeySignInOptions().challenge
                let forBob = WebAuthnChallenge(
                    bytes: issued.bytes, ceremony: .authentication, issuedAt: issued.issuedAt, expiresAt: issued.expiresAt,
                    userVerification: .required)
                await expectError(.userMismatch) {
                    try await accounts.reauthenticate(bob, withPasskey: try Self.assertion(software, challenge: forBob), challenge: forBob)
                }
            }
        }

        /// A passkey reauthentication is the recent sign-in a merge needs: the linking account,
        /// stale, reauthenticates with its passkey, carries the ticket to the new session and
        /// merges the credential's account into itself.
        @Test(arguments: StoreKind.allCases)
        func aPasskeyReauthenticationIsTheFreshSignInAMergeNeeds(kind: StoreKind) async throws {
            try await kind.withService(configuration: try Self.configuration) { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let (software, _) = try await Self.register(accounts, try #require(ann.session))
                _ = try await accounts.signIn(with: TestCredential.make("oidc.corp", "ann-at-corp"))
                let flowStart = clock.now
                let ticket = try await MergeConformanceTests.refusedLink(
                    accounts, try #require(ann.session),
                    with: try await TestCredential.withIDToken("oidc.corp", "ann-at-corp", authTime: flowStart, now: flowStart),
                    flowStart: flowStart)
                clock.advance(by: .seconds(400))
                let stale = try #require(ann.session)
                await expectError(.requiresRecentLogin) { try await accounts.merge(ticket: ticket, into: stale) }
                let options = try await accounts.passkeyReauthenticationOptions(stale)
                let fresh = try await accounts.reauthenticate(
                    stale, withPasskey: try Self.assertion(software, options), challenge: options.challenge)
                let carried = try #require(await accounts.moveMergeTicket(ticket, from: stale, to: fresh.session))
                let merge = try await accounts.merge(ticket: carried, into: fresh.session)
                #expect(merge.targetUID == ann.user.uid)
                #expect(try await accounts.user(uid: ann.user.uid).providerIDs == ["google.com", "oidc.corp"])
            }
        }

        /// Registering is linking: a recent sign-in (a guest excepted), the challenge issued for
        /// this very user, a credential no account has, a name that prints safely.
        @Test(arguments: StoreKind.allCases)
        func registrationIsChecked(kind: StoreKind) async throws {
            try await kind.withService(configuration: try Self.configuration) { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "ann"))
                let session = try #require(ann.session)
                let bob = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "bob")).session)
                // Bob's options, Ann's session: refused before any verification.
                let bobs = try await accounts.passkeyRegistrationOptions(bob)
                let software = SoftwarePasskey.es256(userHandle: Array(bob.uid.utf8))
                let response = try WebAuthnRegistrationResponse(
                    json: software.registrationJSON(.registration(challenge: bobs.challenge.bytes, origin: Self.origin, rpID: Self.rpID)))
                await expectError(.userMismatch) { try await accounts.addPasskey(session, response: response, challenge: bobs.challenge) }
                await expectError(.invalidCredential) {
                    try await accounts.addPasskey(bob, response: response, challenge: bobs.challenge, name: "Laptop\u{1B}[31m")
                }
                _ = try await accounts.addPasskey(bob, response: response, challenge: bobs.challenge)
                // The same credential for Ann: in use.
                let anns = try await accounts.passkeyRegistrationOptions(session)
                #expect(anns.json["excludeCredentials"]?.arrayValue?.isEmpty == true)
                let same = try WebAuthnRegistrationResponse(
                    json: software.registrationJSON(.registration(challenge: anns.challenge.bytes, origin: Self.origin, rpID: Self.rpID)))
                await expectError(.credentialAlreadyInUse) {
                    try await accounts.addPasskey(session, response: same, challenge: anns.challenge)
                }
                #expect(try await accounts.passkeyRegistrationOptions(bob).json["excludeCredentials"]?.arrayValue?.count == 1)
                // An old session adds no way in; a guest's does (its passkey makes it a full account).
                clock.advance(by: .seconds(400))
                await expectError(.requiresRecentLogin) { try await accounts.passkeyRegistrationOptions(session) }
                let guest = try await accounts.signInAsGuest()
                _ = try await Self.register(accounts, guest.session)
                #expect(try await accounts.user(uid: guest.user.uid).isGuest == false)
            }
        }

        /// A counter that goes back is refused and nothing moves.
        @Test(arguments: StoreKind.allCases)
        func aCounterThatGoesBackIsRefused(kind: StoreKind) async throws {
            try await kind.withService(configuration: try Self.configuration) { accounts, _ in
                let ann = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "ann")).session)
                let (software, _) = try await Self.register(accounts, ann)
                let first = try accounts.passkeySignInOptions()
                #expect(
                    try await accounts.signIn(withPasskey: try Self.assertion(software, first, signCount: 5), challenge: first.challenge)
                        .passkey.signCount == 5)
                let second = try accounts.passkeySignInOptions()
                await expectError(.webauthnCounterRegressed) {
                    try await accounts.signIn(withPasskey: try Self.assertion(software, second, signCount: 5), challenge: second.challenge)
                }
                #expect(try await accounts.passkeys(ann).first?.signCount == 5)
            }
        }

        /// One challenge, two instances on one database, the same ceremony sent to both at once:
        /// one signs in, the other is refused as a replay.
        @Test(arguments: StoreKind.allCases)
        func aChallengeIsUsedOnceAcrossInstances(kind: StoreKind) async throws {
            try await kind.withStorePair { one, two in
                let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
                let first = AccountService(store: one, configuration: try Self.configuration, clock: clock.clock)
                let second = AccountService(store: two, configuration: try Self.configuration, clock: clock.clock)
                let ann = try #require(try await first.signIn(with: TestCredential.make("google.com", "ann")).session)
                let (software, _) = try await Self.register(first, ann)
                let options = try first.passkeySignInOptions()
                let response = try Self.assertion(software, options)
                async let a = refusalCode { try await first.signIn(withPasskey: response, challenge: options.challenge) }
                async let b = refusalCode { try await second.signIn(withPasskey: response, challenge: options.challenge) }
                let outcomes = await [a, b]
                #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
                #expect(outcomes.compactMap { $0 } == [.webauthnChallengeReplayed])
            }
        }

        @Test func withoutAConfigurationPasskeysAreOff() async throws {
            let accounts = AccountService(store: InMemoryAccountStore())
            await expectError(.passkeysNotConfigured) { try accounts.passkeySignInOptions() }
        }
    }
}
