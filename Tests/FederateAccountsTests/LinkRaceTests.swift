import Federate
import FederatePostgres
@testable import FederateSQLite
import Foundation
import FederateTestSupport
import Testing

extension AccountsTests {
    /// Two tasks (or two server instances) link one identity to two users at once: the
    /// database lets exactly one win; the other gets `credential_already_in_use`.
    @Suite("Accounts: link races")
    struct LinkRaceTests {
        static let rounds = 12

        /// Races `rounds` times: two users, one fresh identity, `first` links it to user A while
        /// `second` links it to user B.
        static func race(first: AccountService, second: AccountService, round: Int) async throws {
            let a = try await first.signIn(with: TestCredential.make("google.com", "a-\(round)")).user.uid
            let b = try await second.signIn(with: TestCredential.make("google.com", "b-\(round)")).user.uid
            let contested = TestCredential.make("oidc.contested", "x-\(round)")
            async let linkA = refusalCode { try await first.link(a, with: contested) }
            async let linkB = refusalCode { try await second.link(b, with: contested) }
            let outcomes = await [linkA, linkB]
            #expect(outcomes.filter { $0 == nil }.count == 1, "exactly one link wins: \(outcomes)")
            #expect(outcomes.compactMap { $0 } == [.credentialAlreadyInUse], "\(outcomes)")
            let owner = try #require(try await first.store.user(providerID: "oidc.contested", subject: "x-\(round)"))
            let winner = outcomes[0] == nil ? a : b
            #expect(owner.uid == winner)
            let loser = try await first.user(uid: winner == a ? b : a)
            #expect(loser.providerIDs == ["google.com"])
        }

        /// The same race one level down, without the service's look-before-link: only the
        /// database's unique index can decide it.
        static func storeRace(first: any AccountStorage, second: any AccountStorage, round: Int) async throws {
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            func user(_ uid: String) -> User {
                User(
                    uid: uid, email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: now, lastSignInAt: now,
                    identities: [ProviderIdentity(credential: TestCredential.make("google.com", uid), linkedAt: now)])
            }
            let a = "store-a-\(round)", b = "store-b-\(round)"
            try await first.createUser(user(a))
            try await second.createUser(user(b))
            let identity = ProviderIdentity(credential: TestCredential.make("oidc.contested", "store-x-\(round)"), linkedAt: now)
            async let linkA = code { try await first.addIdentity(identity, toUser: a) }
            async let linkB = code { try await second.addIdentity(identity, toUser: b) }
            let outcomes = await [linkA, linkB]
            #expect(outcomes.filter { $0 == nil }.count == 1, "exactly one insert wins: \(outcomes)")
            #expect(outcomes.compactMap { $0 } == [.credentialAlreadyInUse], "\(outcomes)")
            let owner = try await first.user(providerID: "oidc.contested", subject: "store-x-\(round)")
            #expect(owner?.uid == (outcomes[0] == nil ? a : b))
        }

        static func code(_ body: () async throws -> Void) async -> FederateError.Code? {
            do {
                try await body()
                return nil
            } catch let error as FederateError {
                return error.code
            } catch {
                return FederateError.Code(rawValue: "unexpected: \(error)")
            }
        }

        @Test(arguments: StoreKind.allCases)
        func twoTasksOnOneStore(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store)
                for round in 0..<Self.rounds {
                    try await Self.race(first: accounts, second: accounts, round: round)
                    try await Self.storeRace(first: store, second: store, round: round)
                }
            }
        }

        @Test func twoSQLiteStoresOnOneFile() async throws {
            try await TestSQLite.withFile { path in
                let one = try await SQLiteAccountStore.open(path: path)
                let two = try await SQLiteAccountStore.open(path: path)
                #expect(try await one.journalMode() == "wal")
                for round in 0..<Self.rounds {
                    try await Self.race(first: AccountService(store: one), second: AccountService(store: two), round: round)
                    try await Self.storeRace(first: one, second: two, round: round)
                }
                try await one.close()
                try await two.close()
            }
        }

        @Test func twoPostgresPoolsOnOneDatabase() async throws {
            let schema = TestPostgres.freshSchema()
            let one = try await TestPostgres.store(schema: schema)
            try await TestPostgres.withSeparateClient { client in
                let two = try await TestPostgres.store(schema: schema, client: client)
                for round in 0..<Self.rounds {
                    try await Self.race(first: AccountService(store: one), second: AccountService(store: two), round: round)
                    try await Self.storeRace(first: one, second: two, round: round)
                }
            }
        }
    }
}
