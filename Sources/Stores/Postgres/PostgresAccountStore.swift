public import FederateAccounts
public import FederateTokens
package import FederateSQLStore
import Foundation
public import Logging
public import PostgresNIO

/// An `AccountStore` on PostgreSQL: many server instances, one store.
///
/// ```swift
/// let client = PostgresClient(configuration: ...)
/// Task { await client.run() }                          // the pool runs for the app's lifetime (a ServiceGroup can run it)
/// let store = try PostgresAccountStore(client: client)
/// try await store.migrate()
/// let accounts = AccountService(store: store)
/// ```
///
/// Runs on postgres-nio's `PostgresClient` (a connection pool). Uniqueness lives in the
/// database: constraints on (provider ID, subject) and (user, provider ID), and, under one
/// account per email, a unique index on the normalized email. Multi-step writes are
/// transactions that lock the user's row, so instances racing to link one identity to two
/// users end with one winner; the loser gets `credential_already_in_use`.
public final class PostgresAccountStore: AccountStore {
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    package let oneAccountPerEmail: Bool
    /// The pool.
    package let client: PostgresClient
    let schema: PostgresSchema
    /// `SQLDialect.postgres(schema:)` in the store's schema, made once.
    package let dialect: SQLDialect
    let logger: Logger
    /// The statements each connection has prepared; `nil` when the store prepares none.
    let preparedStatements: PostgresPreparedStatements?

    /// Creates a store on `client` (which the application runs) in `schema`.
    /// Throws `invalid_configuration` for a schema name that is not a plain lower-case identifier.
    ///
    /// `preparesStatements`: each pooled connection prepares each of the store's statements
    /// the first time it runs it, so PostgreSQL parses and plans it once per connection
    /// rather than on every run (about twice the sign-ins per second of the database's CPU).
    /// Pass `false` behind a pooler that hands one client's statements to different server
    /// connections and does not track prepared statements (PgBouncer in transaction mode
    /// before 1.21, or with `max_prepared_statements = 0`).
    public init(
        client: PostgresClient, schema: String = "public", oneAccountPerEmail: Bool = true, preparesStatements: Bool = true,
        logger: Logger = Logger(label: "federate.postgres")
    ) throws(FederateError) {
        guard PostgresSchema.isValid(schema) else {
            throw FederateError(.invalidConfiguration, "the schema name must be a lower-case identifier")
        }
        self.client = client
        self.schema = PostgresSchema(name: schema)
        self.dialect = .postgres(schema: schema)
        self.oneAccountPerEmail = oneAccountPerEmail
        self.preparedStatements = preparesStatements ? PostgresPreparedStatements() : nil
        self.logger = logger
    }

    /// Creates or upgrades the tables, and creates (or drops) the unique email index.
    /// Safe to run from several instances at once (an advisory lock serializes them). A schema
    /// whose version is newer than this release's migrations, or that lacks a table its
    /// version promises, is `store_schema_mismatch`, and nothing is changed.
    public func migrate() async throws(FederateError) {
        try await transaction { (connection) async throws(FederateError) in
            try await self.run("SELECT pg_advisory_xact_lock(7275350101)", on: connection)
            try await self.run(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(self.schema.name)\""), on: connection)
            try await self.run(
                PostgresQuery(
                    unsafeSQL:
                        "CREATE TABLE IF NOT EXISTS \(self.schema.versions) (version integer PRIMARY KEY, applied_at double precision NOT NULL)"
                ),
                on: connection)
            let rows = try await self.rows(
                PostgresQuery(unsafeSQL: "SELECT COALESCE(MAX(version), 0) FROM \(self.schema.versions)"), on: connection)
            let applied: Int
            do {
                applied = try rows.first?.decode(Int.self) ?? 0
            } catch {
                throw FederateError(.accountStoreFailed, "PostgreSQL: the schema version is unreadable", cause: error)
            }
            guard applied <= self.schema.migrations.count else {
                throw FederateError(
                    .storeSchemaMismatch,
                    "the schema's version is \(applied); this release knows versions up to \(self.schema.migrations.count): run the release that migrated it"
                )
            }
            // The tables the recorded version promises, before migrating further; then all of them.
            try await self.checkTables(self.schema.tablesByMigration.prefix(applied).flatMap { $0 }, version: applied, on: connection)
            for (index, statements) in self.schema.migrations.enumerated() where index + 1 > applied {
                for statement in statements { try await self.run(PostgresQuery(unsafeSQL: statement), on: connection) }
                try await self.run(
                    // applied_at: when it ran, for the record.
                    "INSERT INTO \(unescaped: self.schema.versions) (version, applied_at) VALUES (\(index + 1), \(FederateClock.system.now.timeIntervalSince1970))",
                    on: connection)
            }
            try await self.checkTables(self.schema.tablesByMigration.flatMap { $0 }, version: self.schema.migrations.count, on: connection)
            do throws(FederateError) {
                try await self.run(
                    PostgresQuery(unsafeSQL: self.oneAccountPerEmail ? self.schema.createUniqueEmail : self.schema.dropUniqueEmail),
                    on: connection)
            } catch  where error.code == .emailAlreadyInUse {
                throw FederateError(.accountStoreFailed, "cannot enforce one account per email: users already share an email")
            }
        }
    }

    /// Throws `store_schema_mismatch` unless every table of `tables` exists.
    private func checkTables(_ tables: [String], version: Int, on connection: PostgresConnection) async throws(FederateError) {
        for table in tables {
            let found = try await rows("SELECT to_regclass(\(table))::text", on: connection).first.flatMap { try? $0.decode(String?.self) }
            guard found != nil else {
                throw FederateError(.storeSchemaMismatch, "the schema says version \(version) but has no table \(table)")
            }
        }
    }

    // MARK: Execution

    /// Runs `body` in a transaction on one pooled connection.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await connection { (connection) async throws(FederateError) in
            try await self.run("BEGIN", on: connection)
            do throws(FederateError) {
                let result = try await body(connection)
                try await self.run("COMMIT", on: connection)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }

    /// Runs `body` on one pooled connection; errors that are not `FederateError`s (the pool
    /// could not connect, or timed out) are `store_unavailable`.
    func connection<T: Sendable>(_ body: (PostgresConnection) async throws(FederateError) -> T) async throws(FederateError) -> T {
        do {
            return try await client.withConnection { try await body($0) }
        } catch let error as FederateError {
            throw error
        } catch {
            throw FederateError(.storeUnavailable, "PostgreSQL: \(String(describing: error).prefix(200))", cause: error)
        }
    }

    func rows(_ query: PostgresQuery, on connection: PostgresConnection) async throws(FederateError) -> [PostgresRow] {
        do {
            return try await connection.query(query, logger: logger).collect()
        } catch {
            throw Self.failure(error).error
        }
    }

    func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws(FederateError) {
        _ = try await rows(query, on: connection)
    }

    /// A driver error as an account error (``translate(_:)``), and whether it says the
    /// connection's prepared statements are gone (SQLSTATE 26000) or a plan no longer fits
    /// the schema (0A000).
    static func failure(_ error: any Error) -> (error: FederateError, lostStatements: Bool) {
        let sqlState: String?
        let translated: FederateError
        switch error {
        case let error as PSQLError:
            sqlState = error.serverInfo?[.sqlState]
            translated = translate(error)
        case let error as PostgresError:
            if case .server(let server) = error { sqlState = server.fields[.sqlState] } else { sqlState = nil }
            translated = translate(error)
        case let error as FederateError:
            return (error, false)
        default:
            return (FederateError(.accountStoreFailed, "PostgreSQL failed", cause: error), false)
        }
        return (translated, sqlState == "26000" || sqlState == "0A000")
    }

    /// Maps unique violations to account errors, a lost or refused connection (and the server
    /// asking for a retry) to `store_unavailable`, a missing table or column to
    /// `store_schema_mismatch`; anything else is `account_store_failed`.
    static func translate(_ error: PSQLError) -> FederateError {
        guard let info = error.serverInfo else {
            return FederateError(.storeUnavailable, "PostgreSQL connection failed: \(error.code)")
        }
        return translate(sqlState: info[.sqlState], constraint: info[.constraintName], message: info[.message])
    }

    /// The same for postgres-nio's older error type, which its prepared-statement API throws.
    static func translate(_ error: PostgresError) -> FederateError {
        guard case .server(let server) = error else {
            return FederateError(.storeUnavailable, "PostgreSQL connection failed: \(String(describing: error).prefix(200))")
        }
        return translate(sqlState: server.fields[.sqlState], constraint: server.fields[.constraintName], message: server.fields[.message])
    }

    private static func translate(sqlState: String?, constraint: String?, message: String?) -> FederateError {
        if sqlState == "23505" {
            switch constraint {
            case "identities_provider_subject": return UniqueConstraint.identityProviderSubject.error
            case "identities_user_provider": return UniqueConstraint.identityUserProvider.error
            case "users_email_unique": return UniqueConstraint.userEmail.error
            default: break
            }
        }
        let text = "PostgreSQL \(sqlState ?? "?"): \((message ?? "").prefix(200))"
        switch sqlState {
        // Connection exceptions, insufficient resources (too many connections), operator
        // intervention (shutting down, cannot connect now), serialization failure, deadlock,
        // lock not available: the database could not answer now.
        case let state? where state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P"):
            return FederateError(.storeUnavailable, text)
        case "40001", "40P01", "55P03":
            return FederateError(.storeUnavailable, text)
        case "42P01", "42703":  // undefined table, undefined column
            return FederateError(.storeSchemaMismatch, text + ": the schema's tables are not this release's")
        default:
            return FederateError(.accountStoreFailed, text)
        }
    }
}
