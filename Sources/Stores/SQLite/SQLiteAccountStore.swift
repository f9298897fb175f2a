public import FederateAccounts
public import FederateTokens
import FederateSQLStore
import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// An `AccountStore` on an SQLite file: the embedded default.
///
/// ```swift
/// let store = try await SQLiteAccountStore.open(path: "/var/lib/app/accounts.sqlite")
/// let accounts = AccountService(store: store)
/// ```
///
/// It is a `Service` (swift-service-lifecycle): run it in the application's `ServiceGroup`
/// and it closes the database on graceful shutdown. A store released without being closed
/// closes its connection when it is released; it never traps.
///
/// The file runs in WAL mode with foreign keys on and a busy timeout, and is migrated on
/// open. Uniqueness lives in the database: a unique index on (provider ID, subject), one on
/// (user, provider ID), and, under one account per email, one on the normalized email.
/// Multi-step writes run in `BEGIN IMMEDIATE` transactions, so several processes (or
/// several stores) on one file cannot link one identity to two users: the loser gets
/// `credential_already_in_use`.
///
/// The store talks to the system's SQLite library (`libsqlite3`) through its C API, on a
/// thread of its own: each operation moves to that thread once and runs all its statements
/// there, prepared once and kept.
public final class SQLiteAccountStore: AccountStore, Service {
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    package let oneAccountPerEmail: Bool
    /// The database file.
    package let path: String
    let database: SQLiteDatabase
    /// Where its statements run.
    let thread: SQLiteThread
    /// Held while an operation runs its statements or its transaction.
    let lock = AsyncLock()
    /// How many operations found the file locked by another connection past the busy timeout.
    private let busyFailures = Mutex<UInt64>(0)

    private init(path: String, oneAccountPerEmail: Bool, database: SQLiteDatabase, thread: SQLiteThread) {
        self.path = path
        self.oneAccountPerEmail = oneAccountPerEmail
        self.database = database
        self.thread = thread
    }

    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// `oneAccountPerEmail` creates the unique email index (and fails with
    /// `account_store_failed` if existing users already share an email); `false` drops it.
    /// A database whose schema version is newer than this release's, or that lacks a table
    /// its version promises, is `store_schema_mismatch`, and nothing is written to it.
    ///
    /// `busyTimeout` is the longest an operation waits for a lock another process (or store)
    /// holds on the file before failing with `store_unavailable`. The wait blocks the store's
    /// one connection, so no task deadline can cut it short, and operations queued behind it
    /// during that wait fail at once with the same code rather than each wait again: a
    /// request waits for another process's lock at most about one `busyTimeout`. Keep it
    /// below your clients' request timeout (`federate serve` uses 2 seconds).
    /// `logger` is kept for source compatibility: the store logs nothing of its own.
    public static func open(
        path: String, oneAccountPerEmail: Bool = true, busyTimeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "federate.sqlite")
    ) async throws(FederateError) -> SQLiteAccountStore {
        let thread = SQLiteThread(name: "federate.sqlite")
        do throws(FederateError) {
            let database = try await thread.run { () async throws(FederateError) in try SQLiteDatabase(path: path) }
            let store = SQLiteAccountStore(path: path, oneAccountPerEmail: oneAccountPerEmail, database: database, thread: thread)
            try await store.operation { () async throws(FederateError) in try await store.prepare(busyTimeout: busyTimeout) }
            return store
        } catch {
            thread.stop()
            throw error
        }
    }

    /// Closes the database. Closing twice does nothing; operations afterwards fail with
    /// `account_store_failed`.
    public func close() async throws(FederateError) {
        await operation { database.close() }
    }

    /// As a `Service`: waits for the group's graceful shutdown (or cancellation), then closes.
    /// The close runs to its end even when the group cancels this service.
    public func run() async throws(FederateError) {
        try? await gracefulShutdown()
        try await Task { () async -> Result<Void, FederateError> in
            do throws(FederateError) { return .success(try await self.close()) } catch { return .failure(error) }
        }.value.get()
    }

    deinit {
        // No operation can be running: each holds the store. The database closes as it is released.
        thread.stop()
    }

    private func prepare(busyTimeout: Duration) async throws(FederateError) {
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try database.setBusyTimeout(milliseconds: Int32(clamping: max(0, milliseconds)))
        _ = try database.rows("PRAGMA journal_mode = WAL", [])
        try database.run("PRAGMA foreign_keys = ON")
        try database.run("PRAGMA synchronous = NORMAL")
        // Deleted and overwritten content (a session key, a token erased) is zeroed, not left in free pages.
        try database.run("PRAGMA secure_delete = ON")
        try await transaction { () throws(FederateError) in
            try database.run("CREATE TABLE IF NOT EXISTS federate_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let applied =
                try database.rows("SELECT COALESCE(MAX(version), 0) AS version FROM federate_schema", []).first?.integer("version") ?? 0
            guard applied <= SQLiteSchema.migrations.count else {
                throw FederateError(
                    .storeSchemaMismatch,
                    "the database's schema version is \(applied); this release knows versions up to \(SQLiteSchema.migrations.count): run the release that migrated it"
                )
            }
            // The tables the recorded version promises, before migrating further; then all of them.
            try checkTables(SQLiteSchema.tablesByMigration.prefix(Int(applied)).flatMap { $0 }, version: Int(applied))
            for (index, statements) in SQLiteSchema.migrations.enumerated() where index + 1 > applied {
                for statement in statements { try database.run(statement) }
                try database.run(
                    "INSERT INTO federate_schema (version, applied_at) VALUES (\(index + 1), ?)",
                    [.real(FederateClock.system.now.timeIntervalSince1970)])  // when it ran, for the record
            }
            try checkTables(SQLiteSchema.tablesByMigration.flatMap { $0 }, version: SQLiteSchema.migrations.count)
            do throws(FederateError) {
                try database.run(oneAccountPerEmail ? SQLiteSchema.createUniqueEmail : SQLiteSchema.dropUniqueEmail)
            } catch  where error.code == .emailAlreadyInUse {
                // Only the index's own failure means that; a busy or broken file says so itself.
                throw FederateError(.accountStoreFailed, "cannot enforce one account per email: users already share an email")
            }
        }
    }

    /// Throws `store_schema_mismatch` unless every table of `expected` exists.
    private func checkTables(_ expected: [String], version: Int) throws(FederateError) {
        guard !expected.isEmpty else { return }
        let tables = Set(try database.rows("SELECT name FROM sqlite_master WHERE type = 'table'", []).compactMap { $0.text("name") })
        if let missing = expected.first(where: { !tables.contains($0) }) {
            throw FederateError(.storeSchemaMismatch, "the database says schema version \(version) but has no table \(missing)")
        }
    }

    /// The journal mode the database runs in (`wal`).
    func journalMode() async throws(FederateError) -> String {
        try await operation { () async throws(FederateError) in
            try database.rows("PRAGMA journal_mode", []).first?.text("journal_mode") ?? ""
        }
    }

    // MARK: Execution

    /// Runs `body` on the store's thread, holding the connection.
    func operation<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        try await thread.run { () async throws(Failure) in try await lock.withLock(body) }
    }

    /// ``operation(_:)`` for the account operations: one that was queued while another found
    /// the file locked past the busy timeout fails at once with `store_unavailable` instead of
    /// waiting out a busy timeout of its own (see ``open(path:oneAccountPerEmail:busyTimeout:logger:)``).
    func accountOperation<T>(_ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        let failuresWhenQueued = busyFailures.withLock { $0 }
        return try await operation { () async throws(FederateError) -> T in
            // Another operation timed out on the lock while this one waited for the connection.
            guard busyFailures.withLock({ $0 }) == failuresWhenQueued else {
                throw FederateError(.storeUnavailable, "SQLite: the database file is locked by another connection")
            }
            do throws(FederateError) {
                return try await body()
            } catch  where error.code == .storeUnavailable {
                busyFailures.withLock { $0 &+= 1 }
                throw error
            }
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction; the caller holds the connection.
    func transaction<T>(_ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        try database.run("BEGIN IMMEDIATE")
        do throws(FederateError) {
            let result = try await body()
            try database.run("COMMIT")
            return result
        } catch {
            try? database.run("ROLLBACK")
            throw error
        }
    }
}
