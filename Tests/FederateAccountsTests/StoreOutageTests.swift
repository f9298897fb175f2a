import Federate
import FederatePostgres
import FederateSQLite
import FederateTestSupport
import Foundation
import PostgresNIO
import Testing

extension AccountsTests {
    /// Stores that cannot answer say so with their own codes: `store_unavailable` when another
    /// process holds the SQLite file's lock (a real second process), promptly and for every
    /// operation queued behind the wait; `store_schema_mismatch` for a database a newer
    /// release migrated, or one missing the tables its version promises.
    @Suite("Accounts: store outages", .serialized)
    struct StoreOutageTests {
        @Test func aLockedSQLiteFileIsUnavailableWithinOneBusyTimeout() async throws {
            try await TestSQLite.withFile { path in
                let store = try await SQLiteAccountStore.open(path: path, busyTimeout: .seconds(1))
                let accounts = AccountService(store: store)
                let signedIn = try await accounts.signIn(with: TestCredential.make("google.com", "g-1"))
                let lock = try await SQLiteLockHolder.lock(path)
                let start = ContinuousClock.now
                // Eight requests at once: each waits for the one connection, then for the lock.
                let codes = await withTaskGroup(of: FederateError.Code?.self) { group in
                    for index in 0..<8 {
                        group.addTask {
                            do throws(FederateError) {
                                _ = try await store.consumeEventID("e-\(index)", expiresAt: Date().addingTimeInterval(60), now: Date())
                                return nil
                            } catch {
                                return error.code
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                let elapsed = ContinuousClock.now - start
                #expect(codes.allSatisfy { $0 == .storeUnavailable }, "\(codes)")
                // About one busy timeout in all, not one each (eight seconds).
                #expect(elapsed < .seconds(4), "\(elapsed)")
                await expectError(.storeUnavailable) { try await accounts.signIn(with: TestCredential.make("google.com", "g-2")) }
                // Reads go on beside another process's write lock (WAL): a session still verifies.
                _ = try await accounts.verifySession(try #require(signedIn.sessionToken))
                await lock.release()
                #expect(try await store.consumeEventID("e-after", expiresAt: Date().addingTimeInterval(60), now: Date()))
                _ = try await accounts.verifySession(try #require(signedIn.sessionToken))
                try await store.close()
            }
        }

        @Test(arguments: [999, 4])
        func anSQLiteSchemaThisReleaseDoesNotKnowIsAMismatch(version: Int) async throws {
            try await TestSQLite.withFile { path in
                let create = await ExternalProcess.run(
                    [
                        "/usr/bin/env", "python3", "-c",
                        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE federate_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)'); c.execute('INSERT INTO federate_schema VALUES (' + sys.argv[2] + ', 0)'); c.commit()",
                        path, String(version),
                    ], in: URL(fileURLWithPath: path).deletingLastPathComponent(), timeout: 30)
                #expect(create.status == 0, "\(create.stderr)")
                let error = await expectError(.storeSchemaMismatch) { try await SQLiteAccountStore.open(path: path) }
                #expect(error?.message.contains(String(version)) == true, "\(String(describing: error))")
            }
        }

        @Test(arguments: [999, 4])
        func aPostgresSchemaThisReleaseDoesNotKnowIsAMismatch(version: Int) async throws {
            let client = try await TestPostgres.client()
            let schema = TestPostgres.freshSchema()
            try await client.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
            try await client.query(
                PostgresQuery(
                    unsafeSQL: "CREATE TABLE \(schema).federate_schema (version integer PRIMARY KEY, applied_at double precision NOT NULL)")
            )
            try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(schema).federate_schema VALUES (\(version), 0)"))
            let error = await expectError(.storeSchemaMismatch) { try await PostgresAccountStore(client: client, schema: schema).migrate() }
            #expect(error?.message.contains(String(version)) == true, "\(String(describing: error))")
            // Nothing was created.
            let tables = try await client.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)'"))
            for try await count in tables.decode(Int.self) { #expect(count == 1) }
        }
    }
}
