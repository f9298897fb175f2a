import FederatePostgres
import FederateSQLite
import FederateTestSupport
import Federate
import Foundation
import Testing
@testable import FederateAccounts

/// The revocation cache (`AccountServiceConfiguration.revocationCheckInterval`): two
/// services on one real store, as two server instances. A revocation through one is refused
/// by the other no later than one interval after it, and at once by the one that made it.
@Suite("RevocationCache")
struct RevocationCacheTests {
    static let interval = Duration.seconds(1)

    /// Two stores on one database (two connections or pools, as two processes would have).
    static func withTwoStores(_ kind: StoreKind, _ body: (any AccountStorage, any AccountStorage) async throws -> Void) async throws {
        switch kind {
        case .memory:
            let store = InMemoryAccountStore()
            try await body(store, store)
        case .sqlite:
            try await TestSQLite.withFile { path in
                let one = try await SQLiteAccountStore.open(path: path)
                let two = try await SQLiteAccountStore.open(path: path)
                try await body(one, two)
                try await one.close()
                try await two.close()
            }
        case .postgres:
            let schema = TestPostgres.freshSchema()
            let one = try await TestPostgres.store(schema: schema)
            try await TestPostgres.withSeparateClient { client in
                try await body(one, try await TestPostgres.store(schema: schema, client: client))
            }
        }
    }

    /// Instance `a` and instance `b`, one clock.
    static func withInstances(
        _ kind: StoreKind, interval: Duration = interval, _ body: (AccountService, AccountService, TestClock) async throws -> Void
    ) async throws {
        try await withTwoStores(kind) { one, two in
            let clock = TestClock()
            let configuration = AccountServiceConfiguration(revocationCheckInterval: interval)
            try await body(
                AccountService(store: one, configuration: configuration, clock: clock.clock),
                AccountService(store: two, configuration: configuration, clock: clock.clock), clock)
        }
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.postgres])
    func aSignOutReachesTheOtherInstanceWithinTheInterval(kind: StoreKind) async throws {
        try await Self.withInstances(kind) { a, b, clock in
            let signedIn = try await a.signIn(with: TestCredential.make("google.com", "alice"))
            let token = try #require(signedIn.sessionToken)
            let session = try await b.verifySession(token)  // b now holds it as active
            try await a.signOut(session)
            await expectError(.sessionRevoked) { try await a.verifySession(token) }  // at once where it was made
            // b may answer from its cache until one interval after its last epoch read…
            clock.advance(by: Self.interval - .milliseconds(1))
            _ = try await b.verifySession(token)
            // …and not a moment longer.
            clock.advance(by: .milliseconds(1))
            await expectError(.sessionRevoked) { try await b.verifySession(token) }
        }
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.postgres])
    func disablingAndRevokingReachTheOtherInstance(kind: StoreKind) async throws {
        try await Self.withInstances(kind) { a, b, clock in
            let alice = try await a.signIn(with: TestCredential.make("google.com", "alice"))
            let bob = try await a.signIn(with: TestCredential.make("google.com", "bob"))
            let aliceToken = try #require(alice.sessionToken), bobToken = try #require(bob.sessionToken)
            _ = try await b.verifySession(aliceToken)
            _ = try await b.verifySession(bobToken)
            try await a.disable(uid: alice.user.uid)
            try await a.revokeSessions(uid: bob.user.uid)
            clock.advance(by: Self.interval)
            await expectError(.userDisabled) { try await b.verifySession(aliceToken) }
            await expectError(.sessionRevoked) { try await b.verifySession(bobToken) }
        }
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.postgres])
    func aProviderLogoutAndADeletionReachTheOtherInstance(kind: StoreKind) async throws {
        try await Self.withInstances(kind) { a, b, clock in
            let alice = try await a.signIn(with: TestCredential.make("google.com", "alice"))
            let bob = try await a.signIn(with: TestCredential.make("google.com", "bob"))
            let aliceToken = try #require(alice.sessionToken), bobToken = try #require(bob.sessionToken)
            _ = try await b.verifySession(aliceToken)
            _ = try await b.verifySession(bobToken)
            try await a.apply(.sessionsRevoked(providerID: "google.com", subject: "alice"))
            _ = try await a.deleteUser(uid: bob.user.uid)
            clock.advance(by: Self.interval)
            await expectError(.sessionRevoked) { try await b.verifySession(aliceToken) }
            await expectError(.userNotFound) { try await b.verifySession(bobToken) }
        }
    }

    @Test(arguments: [StoreKind.sqlite, StoreKind.postgres])
    func withoutTheCacheEveryCheckAsksTheStore(kind: StoreKind) async throws {
        try await Self.withInstances(kind, interval: .zero) { a, b, _ in
            let signedIn = try await a.signIn(with: TestCredential.make("google.com", "alice"))
            let token = try #require(signedIn.sessionToken)
            let session = try await b.verifySession(token)
            try await a.signOut(session)
            await expectError(.sessionRevoked) { try await b.verifySession(token) }
        }
    }

    /// Every change that can end a session advances the epoch; sign-ins and other updates do not.
    @Test(arguments: StoreKind.allCases)
    func theEpochAdvancesWithEveryRevocation(kind: StoreKind) async throws {
        try await kind.withService { accounts, _ in
            let store = accounts.store
            func epoch() async throws -> Int64 { try #require(try await store.revocationEpoch()) }
            let signedIn = try await accounts.signIn(with: TestCredential.make("google.com", "alice", email: "alice@example.com"))
            let uid = signedIn.user.uid
            let session = try #require(signedIn.session)
            var last = try await epoch()
            _ = try await accounts.signIn(with: TestCredential.make("google.com", "alice"))
            try await store.updateUser(uid: uid, UserUpdate(email: .init(address: "a@example.com", verified: false)))
            #expect(try await epoch() == last)
            let revocations: [(String, () async throws -> Void)] = [
                ("sign-out", { try await accounts.signOut(session) }),
                ("revoke sessions", { try await accounts.revokeSessions(uid: uid) }),
                ("disable", { try await accounts.disable(uid: uid) }),
                ("provider logout", { try await accounts.apply(.logout(providerID: "google.com", subject: "alice", sessionID: nil)) }),
                ("delete", { _ = try await accounts.deleteUser(uid: uid) }),
            ]
            for (name, revoke) in revocations {
                try await revoke()
                let now = try await epoch()
                #expect(now > last, "\(name) did not advance the epoch")
                last = now
            }
        }
    }
}
