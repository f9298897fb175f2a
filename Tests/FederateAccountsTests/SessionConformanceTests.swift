import FederateTestSupport
import Federate
import Foundation
import Testing
@testable import FederateAccounts

extension AccountsTests {
    /// Session tokens: issue, verify, sign-out, revocation, rotation, recent login, on every store.
    @Suite("Accounts: sessions (every store)")
    struct SessionConformanceTests {
        @Test(arguments: StoreKind.allCases)
        func issueAndVerify(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let result = try await accounts.signIn(with: TestCredential.make("google.com", "g-1"))
                let token = try #require(result.sessionToken)
                let session = try await accounts.verifySession(token)
                #expect(session == result.session)
                #expect(session.uid == result.user.uid)
                #expect(session.issuedAt == clock.now)
                #expect(session.expiresAt == clock.now.addingTimeInterval(24 * 3600))
                #expect(session.authTime == clock.now)

                // The token is an ES256 JWT with the claims and a kid.
                let jws = try CompactJWS(parsing: token)
                #expect(jws.header.algorithmName == "ES256")
                #expect(jws.header.keyID == session.keyID)
                let claims = try JSONParser().parseObject(jws.payload)
                // The provider identity the session came from is recorded (idp, idp_sub; idp_sid when the
                // ID token named a provider session), for logouts and security events.
                #expect(Set(claims.keys) == ["iss", "sub", "sid", "iat", "exp", "auth_time", "idp", "idp_sub"])
                #expect(claims["idp"] == "google.com" && claims["idp_sub"] == "g-1")
                #expect(claims["sub"]?.stringValue == session.uid)
                #expect(claims["sid"]?.stringValue == session.sessionID)

                // A second sign-in is a second session.
                let other = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).session)
                #expect(other.sessionID != session.sessionID)

                // Expiry takes the clock tolerance like every other token kind's (the one expiry rule).
                clock.advance(by: AccountServiceConfiguration.standard.sessionLifetime)
                _ = try await accounts.verifySession(token, checkRevoked: false)
                clock.advance(by: AccountServiceConfiguration.standard.clockTolerance)
                await expectError(.tokenExpired) { try await accounts.verifySession(token) }
            }
        }

        /// Provider events end sessions through the store; event IDs are seen once.
        @Test(arguments: StoreKind.allCases)
        func providerEventsEndSessionsAndEventIDsAreSeenOnce(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-ann"))
                let other = try await accounts.signIn(with: TestCredential.make("apple.com", "a-ann"))
                let annToken = try #require(ann.sessionToken), otherToken = try #require(other.sessionToken)
                clock.advance(by: .seconds(2))
                try await accounts.apply(.sessionsRevoked(providerID: "google.com", subject: "g-ann"))
                await expectError(.sessionRevoked) { try await accounts.verifySession(annToken) }
                _ = try await accounts.verifySession(otherToken)  // another identity's session stands
                clock.advance(by: .seconds(2))
                let again = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-ann")).sessionToken)
                _ = try await accounts.verifySession(again)  // a sign-in after the event stands
                try await accounts.apply(
                    .identityEmailChanged(providerID: "apple.com", subject: "a-ann", email: "relay@example.com", verified: false))
                let apple = try #require(try await accounts.user(uid: other.user.uid).identity(providerID: "apple.com"))
                #expect(apple.email == "relay@example.com" && !apple.emailVerified)
                try await accounts.apply(.accountDisabled(providerID: "apple.com", subject: "a-ann"))
                #expect(try await accounts.user(uid: other.user.uid).disabled)
                // Replays: an ID counts once, on every instance of the store.
                #expect(
                    try await accounts.store.consumeEventID(
                        "logout iss jti-1", expiresAt: clock.now.addingTimeInterval(600), now: clock.now))
                #expect(
                    try await !accounts.store.consumeEventID(
                        "logout iss jti-1", expiresAt: clock.now.addingTimeInterval(600), now: clock.now))
                #expect(
                    try await accounts.store.consumeEventID(
                        "logout iss jti-2", expiresAt: clock.now.addingTimeInterval(600), now: clock.now))
            }
        }

        @Test(arguments: StoreKind.allCases)
        func forgedAndForeignTokensFail(kind: StoreKind) async throws {
            try await kind.withService { accounts, _ in
                let token = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                var parts = token.split(separator: ".").map(String.init)
                let claims = try JSONParser().parseObject(Base64URL.decode(parts[1]) ?? [])
                var forged = claims
                forged["sub"] = "someone-else"
                parts[1] = Base64URL.encode(JSONSerializer.bytes(.object(forged)))
                await expectError(.invalidSignature) { try await accounts.verifySession(parts.joined(separator: ".")) }
                await expectError(.malformedToken) { try await accounts.verifySession("not.a-token") }

                // A token from another service (other keys) names an unknown kid.
                try await StoreKind.memory.withService { other, _ in
                    let foreign = try #require(try await other.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                    await expectError(.unknownKey) { try await accounts.verifySession(foreign) }
                }
                // Right key, wrong issuer.
                let elsewhere = AccountService(store: accounts.store, configuration: AccountServiceConfiguration(issuer: "elsewhere"))
                let foreignIssuer = try #require(try await elsewhere.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                await expectError(.issuerMismatch) { try await accounts.verifySession(foreignIssuer) }
            }
        }

        @Test(arguments: StoreKind.allCases)
        func signOutAndRevokeSessions(kind: StoreKind) async throws {
            try await kind.withService { accounts, clock in
                let uid = try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).user.uid
                let first = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                let second = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)

                try await accounts.signOut(try await accounts.verifySession(first))
                await expectError(.sessionRevoked) { try await accounts.verifySession(first) }
                _ = try await accounts.verifySession(first, checkRevoked: false)
                _ = try await accounts.verifySession(second)

                clock.advance(by: .seconds(10))
                try await accounts.revokeSessions(uid: uid)
                #expect(try await accounts.user(uid: uid).tokensValidAfter == clock.now.addingTimeInterval(1))
                await expectError(.sessionRevoked) { try await accounts.verifySession(second) }
                clock.advance(by: .seconds(1))
                let third = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                _ = try await accounts.verifySession(third)
                await expectError(.userNotFound) { try await accounts.revokeSessions(uid: "nobody") }

                // Sign-outs are forgotten once their sessions have expired.
                let firstSession = try await accounts.verifySession(first, checkRevoked: false)
                #expect(try await accounts.store.isSessionRevoked(id: firstSession.sessionID))
                clock.advance(by: AccountServiceConfiguration.standard.sessionLifetime + .seconds(60))
                let fourth = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).session)
                try await accounts.signOut(fourth)
                #expect(try await !accounts.store.isSessionRevoked(id: firstSession.sessionID))
                #expect(try await accounts.store.isSessionRevoked(id: fourth.sessionID))
            }
        }

        @Test(arguments: StoreKind.allCases)
        func requireRecentLogin(kind: StoreKind) async throws {
            try await kind.withService(configuration: AccountServiceConfiguration(recentLoginWindow: .seconds(120))) { accounts, clock in
                let session = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).session)
                try accounts.requireRecentLogin(session)
                clock.advance(by: .seconds(120))
                try accounts.requireRecentLogin(session)
                clock.advance(by: .seconds(1))
                let error = await expectError(.requiresRecentLogin) { try accounts.requireRecentLogin(session) }
                #expect(error?.message.contains("reauthenticate") == true)
                try accounts.requireRecentLogin(session, within: .seconds(3600))
                await expectError(.requiresRecentLogin) { try accounts.requireRecentLogin(session, within: .seconds(60)) }
            }
        }

        /// A token naming a key the ring lacks makes it reread the store at most once a second:
        /// made-up key IDs cannot turn every session check into a store read.
        @Test(arguments: StoreKind.allCases)
        func madeUpKeyIDsRereadTheStoreAtMostOncePerSecond(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let recorder = ObservabilityTests.Recorder()
                let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
                let accounts = AccountService(store: store, clock: clock.clock, observability: recorder.observability)
                let token = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                _ = try await accounts.verifySession(token)
                let parts = token.split(separator: ".")
                let madeUp =
                    Base64URL.encode(#"{"alg":"ES256","kid":"made-up","typ":"federate-session+jwt"}"#) + "." + parts[1] + "." + parts[2]
                func storeReads() -> Int {
                    recorder.tracer.finishedSpans.filter { $0.operationName == "federate.store.session_keys" }.count
                }

                let before = storeReads()
                for _ in 0..<5 { await expectError(.unknownKey) { try await accounts.verifySession(madeUp) } }
                #expect(storeReads() == before + 1, "one reread for five tokens within a second")
                clock.advance(by: .milliseconds(999))
                await expectError(.unknownKey) { try await accounts.verifySession(madeUp) }
                #expect(storeReads() == before + 1)
                clock.advance(by: .milliseconds(1))
                await expectError(.unknownKey) { try await accounts.verifySession(madeUp) }
                #expect(storeReads() == before + 2, "a second later, one more")
                _ = try await accounts.verifySession(token)
            }
        }

        @Test(arguments: StoreKind.allCases)
        func keyRotation(kind: StoreKind) async throws {
            let configuration = AccountServiceConfiguration(
                sessionLifetime: .seconds(3600), keyRotationInterval: .seconds(86400), keyCacheDuration: .seconds(30))
            try await kind.withService(configuration: configuration) { accounts, clock in
                let old = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                let oldKey = try await accounts.verifySession(old).keyID

                // A second instance on the same store shares the keys.
                let instance = AccountService(store: accounts.store, configuration: configuration, clock: clock.clock)
                #expect(try await instance.verifySession(old).keyID == oldKey)

                // Explicit rotation: new tokens use a new kid, old ones keep verifying.
                try await accounts.rotateSessionKeys()
                let rotated = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).session)
                #expect(rotated.keyID != oldKey)
                _ = try await accounts.verifySession(old)
                // The other instance still caches the old key set; the unknown kid makes it reread.
                let fromNew = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).sessionToken)
                #expect(try await instance.verifySession(fromNew).keyID == rotated.keyID)
                #expect(try await accounts.store.sessionKeys().count == 2)

                // Automatic rotation after the interval; keys whose tokens have all expired are removed.
                clock.advance(by: .seconds(86400 + 1))
                let later = try #require(try await accounts.signIn(with: TestCredential.make("google.com", "g-1")).session)
                #expect(later.keyID != rotated.keyID && later.keyID != oldKey)
                let kids = Set(try await accounts.store.sessionKeys().map(\.keyID))
                #expect(kids == [rotated.keyID, later.keyID])
            }
        }
    }
}
