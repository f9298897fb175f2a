import FederateTestSupport
import Federate
import FederatePostgres
@testable import FederateSQLite
import PostgresNIO
import Foundation
import Testing

extension AccountsTests {
    /// What only the SQL stores have: files, migrations, the email index switched on and off.
    @Suite("Accounts: SQL store specifics")
    struct StoreSpecificTests {
        @Test func sqliteFilePersistsAndMigratesOnce() async throws {
            try await TestSQLite.withFile { path in
                let store = try await SQLiteAccountStore.open(path: path)
                #expect(try await store.journalMode() == "wal")
                // Whole seconds: Date's own representation does not round-trip every fraction through seconds since 1970.
                let clock = TestClock()
                let created = try await AccountService(store: store, clock: clock.clock).signIn(
                    with: TestCredential.make("google.com", "g-1", email: "ann@example.com", refreshToken: "rt"))
                try await store.close()

                let reopened = try await SQLiteAccountStore.open(path: path)
                let user = try #require(try await reopened.user(uid: created.user.uid))
                #expect(user == created.user)
                // Sessions issued before the restart still verify: the keys are in the file.
                _ = try await AccountService(store: reopened, clock: clock.clock).verifySession(try #require(created.sessionToken))
                try await reopened.close()
            }
        }

        @Test func sqliteEmailIndexFollowsThePolicy() async throws {
            try await TestSQLite.withFile { path in
                let relaxed = try await SQLiteAccountStore.open(path: path, oneAccountPerEmail: false)
                let accounts = AccountService(store: relaxed)
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
                _ = try await accounts.signIn(with: TestCredential.make("apple.com", "a-1", email: "ANN@example.com"))
                try await relaxed.close()
                // Two users share an email: the unique index cannot be created.
                await expectError(.accountStoreFailed) { try await SQLiteAccountStore.open(path: path, oneAccountPerEmail: true) }
            }
        }

        @Test func sqliteUnopenablePathFails() async throws {
            await expectError(.accountStoreFailed) { try await SQLiteAccountStore.open(path: "/nonexistent-directory/accounts.sqlite") }
        }

        @Test func postgresMigratesConcurrentlyAndPersists() async throws {
            let schema = TestPostgres.freshSchema()
            let client = try await TestPostgres.client()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await PostgresAccountStore(client: client, schema: schema).migrate() }
                }
                try await group.waitForAll()
            }
            let first = try PostgresAccountStore(client: client, schema: schema)
            let clock = TestClock()
            let created = try await AccountService(store: first, clock: clock.clock).signIn(
                with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
            let second = try await TestPostgres.store(schema: schema)
            #expect(try await second.user(uid: created.user.uid) == created.user)
            _ = try await AccountService(store: second, clock: clock.clock).verifySession(try #require(created.sessionToken))
        }

        @Test func postgresEmailIndexFollowsThePolicy() async throws {
            let schema = TestPostgres.freshSchema()
            let relaxed = try await TestPostgres.store(oneAccountPerEmail: false, schema: schema)
            let accounts = AccountService(store: relaxed)
            _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", email: "ann@example.com"))
            _ = try await accounts.signIn(with: TestCredential.make("apple.com", "a-1", email: "ANN@example.com"))
            await expectError(.accountStoreFailed) { try await TestPostgres.store(oneAccountPerEmail: true, schema: schema) }
        }

        @Test func postgresSchemaNamesAreIdentifiers() async throws {
            let client = try await TestPostgres.client()
            for name in ["Public", "a;drop", "", "1abc", "a\"b"] {
                await expectError(.invalidConfiguration) { try PostgresAccountStore(client: client, schema: name) }
            }
        }

        /// Each statement is prepared once per connection, and a connection that lost its
        /// statements (a pooler's `DISCARD ALL`) prepares them again: at once outside a
        /// transaction, and on the next try inside one (the error ends the transaction).
        @Test func postgresPreparesOnceAndRecoversFromADiscard() async throws {
            try await TestPostgres.withSeparateClient(maximumConnections: 1) { client in
                let store = try PostgresAccountStore(client: client, schema: TestPostgres.freshSchema())
                try await store.migrate()
                let accounts = AccountService(store: store)
                let credential = TestCredential.make("google.com", "g-1", email: "ann@example.com")
                let uid = try await accounts.signIn(with: credential).user.uid
                _ = try await accounts.signIn(with: credential)
                let prepared = try await Self.preparedCount(client)
                #expect(prepared > 0)
                _ = try await accounts.signIn(with: credential)
                #expect(try await Self.preparedCount(client) == prepared, "a returning sign-in prepared its statements again")

                try await client.query("DISCARD ALL")
                #expect(try await store.user(uid: uid)?.uid == uid)  // outside a transaction: prepared again at once
                await expectError(.lastProvider) { try await store.removeIdentity(providerID: "google.com", fromUser: uid) }
                try await client.query("DEALLOCATE ALL")
                await expectError(.accountStoreFailed) { try await store.removeIdentity(providerID: "google.com", fromUser: uid) }
                await expectError(.lastProvider) { try await store.removeIdentity(providerID: "google.com", fromUser: uid) }
            }
        }

        /// A store that prepares nothing, for poolers that move statements between server connections.
        @Test func postgresWithoutPreparedStatements() async throws {
            try await TestPostgres.withSeparateClient(maximumConnections: 1) { client in
                let store = try PostgresAccountStore(client: client, schema: TestPostgres.freshSchema(), preparesStatements: false)
                try await store.migrate()
                let accounts = AccountService(store: store)
                let credential = TestCredential.make("google.com", "g-1", email: "ann@example.com")
                _ = try await accounts.signIn(with: credential)
                #expect(try await accounts.signIn(with: credential).additionalUserInfo.isNewUser == false)
                #expect(try await Self.preparedCount(client) == 0)
            }
        }

        private static func preparedCount(_ client: PostgresClient) async throws -> Int {
            for try await count in try await client.query("SELECT count(*)::int8 FROM pg_prepared_statements").decode(Int.self) {
                return count
            }
            return -1
        }
    }
}
