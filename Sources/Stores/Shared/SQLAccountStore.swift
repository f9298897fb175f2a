package import FederateTokens
package import FederateAccounts

/// An `AccountStore` on an SQL database. Its operations are written once, in this
/// module: what each one reads, checks and writes, in which order, in which transaction,
/// with which error. A store supplies only what its database does differently: its
/// ``SQLDialect``, a connection, and a write transaction.
///
/// A store conforms in an extension and gets every `AccountStore` method:
///
/// ```swift
/// extension SQLiteAccountStore: SQLAccountStore { ... }
/// ```
package protocol SQLAccountStore: AccountStorage {
    /// The store's view of a connection.
    associatedtype Connection: SQLConnection

    /// How the store's statements are written.
    var dialect: SQLDialect { get }

    /// Runs `body` on one connection, each statement in a transaction of its own. The
    /// store turns its driver's errors into `FederateError`s: a unique violation into
    /// its ``UniqueConstraint/error``, the others into `account_store_failed`.
    func withConnection<T: Sendable>(_ body: (Connection) async throws(FederateError) -> T) async throws(FederateError) -> T

    /// Runs `body` in a write transaction on one connection, committed when `body` returns
    /// and rolled back when it throws. In it, the `SELECT` of a user's row (with the
    /// dialect's ``SQLDialect/userRowLock``) keeps that row, or the whole database, from
    /// changing until the transaction ends, so concurrent changes to one user's identities
    /// run one after the other. Errors as in ``withConnection(_:)``.
    func withTransaction<T: Sendable>(_ body: (Connection) async throws(FederateError) -> T) async throws(FederateError) -> T

    /// Called after secrets were erased from rows (the plaintext tokens of Federate 0.1): makes
    /// the database drop the copies its journal still holds (SQLite truncates its WAL). Nothing
    /// by default.
    func eraseJournaledSecrets() async throws(FederateError)
}

/// A connection as the shared operations use it: one statement at a time.
package protocol SQLConnection {
    /// A result row.
    associatedtype Row: SQLRow

    /// Runs `sql` (written in the store's dialect) with `values` bound to its placeholders
    /// in order, and returns the rows.
    func rows(_ sql: String, _ values: [SQLValue]) async throws(FederateError) -> [Row]
}

extension SQLAccountStore {
    /// Nothing to erase: the database keeps no copies a store can drop.
    package func eraseJournaledSecrets() async throws(FederateError) {}

    /// Runs `query`, rendered in the store's dialect, and returns the rows.
    func rows(_ query: SQLQuery, on connection: Connection) async throws(FederateError) -> [Connection.Row] {
        let (sql, values) = query.rendered(in: dialect)
        return try await connection.rows(sql, values)
    }

    /// Runs `query`, rendered in the store's dialect, for its effect.
    func execute(_ query: SQLQuery, on connection: Connection) async throws(FederateError) {
        _ = try await rows(query, on: connection)
    }

    /// Whether `query` returns a row.
    func returnsRow(_ query: SQLQuery, on connection: Connection) async throws(FederateError) -> Bool {
        try await !rows(query, on: connection).isEmpty
    }
}
