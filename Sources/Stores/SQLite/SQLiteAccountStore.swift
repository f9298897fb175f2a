public import FederateAccounts
public import FederateTokens
import FederateSQLStore
import Foundation
public import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
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
/// closes its connection in the background; it never traps.
///
/// The file runs in WAL mode with foreign keys on and a busy timeout, and is migrated on
/// open. Uniqueness lives in the database: a unique index on (provider ID, subject), one on
/// (user, provider ID), and, under one account per email, one on the normalized email.
/// Multi-step writes run in `BEGIN IMMEDIATE` transactions, so several processes (or
/// several stores) on one file cannot link one identity to two users: the loser gets
/// `credential_already_in_use`.
public final class SQLiteAccountStore: AccountStore, Service {
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    public let oneAccountPerEmail: Bool
    /// The database file.
    public let path: String
    let connection: SQLiteConnection
    private let threadPool: NIOThreadPool
    /// Held while the connection runs a statement or a transaction.
    let lock = AsyncLock()
    private let closed = Atomic<Bool>(false)

    private init(path: String, oneAccountPerEmail: Bool, connection: SQLiteConnection, threadPool: NIOThreadPool) {
        self.path = path
        self.oneAccountPerEmail = oneAccountPerEmail
        self.connection = connection
        self.threadPool = threadPool
    }

    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// `oneAccountPerEmail` creates the unique email index (and fails with
    /// `account_store_failed` if existing users already share an email); `false` drops it.
    public static func open(
        path: String, oneAccountPerEmail: Bool = true, busyTimeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "federate.sqlite")
    ) async throws -> SQLiteAccountStore {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
        } catch {
            try? await threadPool.shutdownGracefully()
            throw FederateError(.accountStoreFailed, "cannot open the SQLite database: \(error)")
        }
        let store = SQLiteAccountStore(path: path, oneAccountPerEmail: oneAccountPerEmail, connection: connection, threadPool: threadPool)
        do {
            try await store.prepare(busyTimeout: busyTimeout)
        } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    /// Closes the connection. Closing twice does nothing.
    public func close() async throws(FederateError) {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        do {
            try await lock.withLock {
                try await connection.close()
            }
        } catch {
            closed.store(false, ordering: .releasing)  // Still open: a later close, or the deinit, closes it.
            throw FederateError(.accountStoreFailed, "closing the SQLite database failed", cause: error)
        }
        do {
            try await threadPool.shutdownGracefully()
        } catch {
            throw FederateError(.accountStoreFailed, "stopping the SQLite thread failed", cause: error)
        }
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
        // Released unclosed (an error path, a test): close in the background. The close
        // keeps the connection alive until it has run, so SQLiteNIO's check in its deinit holds.
        guard !closed.load(ordering: .acquiring) else { return }
        let threadPool = threadPool
        connection.close().whenComplete { _ in threadPool.shutdownGracefully { _ in } }
    }

    private func prepare(busyTimeout: Duration) async throws(FederateError) {
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try await run("PRAGMA busy_timeout = \(milliseconds)")
        _ = try await query("PRAGMA journal_mode = WAL")
        try await run("PRAGMA foreign_keys = ON")
        try await run("PRAGMA synchronous = NORMAL")
        try await transaction { () async throws(FederateError) in
            try await self.run("CREATE TABLE IF NOT EXISTS federate_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let applied = try await self.query("SELECT COALESCE(MAX(version), 0) AS version FROM federate_schema").first?.column("version")?.integer ?? 0
            for (index, statements) in SQLiteSchema.migrations.enumerated() where index + 1 > applied {
                for statement in statements { try await self.run(statement) }
                try await self.run("INSERT INTO federate_schema (version, applied_at) VALUES (?, ?)", [.integer(index + 1), .float(FederateClock.system.now.timeIntervalSince1970)])  // when it ran, for the record
            }
            do {
                try await self.run(self.oneAccountPerEmail ? SQLiteSchema.createUniqueEmail : SQLiteSchema.dropUniqueEmail)
            } catch {
                throw FederateError(.accountStoreFailed, "cannot enforce one account per email: users already share an email")
            }
        }
    }

    /// The journal mode the database runs in (`wal`).
    public func journalMode() async throws(FederateError) -> String {
        try await lock.withLock { () async throws(FederateError) in try await query("PRAGMA journal_mode").first?.column("journal_mode")?.string ?? "" }
    }

    // MARK: Execution

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction, holding the connection.
    func transaction<T>(_ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await lock.withLock { () async throws(FederateError) in
            try await run("BEGIN IMMEDIATE")
            do throws(FederateError) {
                let result = try await body()
                try await run("COMMIT")
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK")
                throw error
            }
        }
    }

    func query(_ sql: String, _ binds: [SQLiteData] = []) async throws(FederateError) -> [SQLiteRow] {
        // Called with the lock held, so a close (which holds it too) has finished or not begun.
        guard !connection.isClosed else { throw FederateError(.accountStoreFailed, "the SQLite database is closed") }
        do {
            return try await connection.query(sql, binds)
        } catch let error as SQLiteError {
            throw Self.translate(error)
        } catch {
            throw FederateError(.accountStoreFailed, "SQLite failed", cause: error)
        }
    }

    func run(_ sql: String, _ binds: [SQLiteData] = []) async throws(FederateError) {
        _ = try await query(sql, binds)
    }

    /// Maps constraint violations to account errors; anything else is `account_store_failed`.
    static func translate(_ error: SQLiteError) -> FederateError {
        let message = error.message
        if message.contains("UNIQUE constraint failed: identities.provider_id, identities.subject") {
            return UniqueConstraint.identityProviderSubject.error
        }
        if message.contains("UNIQUE constraint failed: identities.user_uid, identities.provider_id") {
            return UniqueConstraint.identityUserProvider.error
        }
        if message.contains("UNIQUE constraint failed: users.email_normalized") {
            return UniqueConstraint.userEmail.error
        }
        return FederateError(.accountStoreFailed, "SQLite: \(message.prefix(200))")
    }
}
