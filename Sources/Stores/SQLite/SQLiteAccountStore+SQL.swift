package import FederateTokens
package import FederateSQLStore

/// The account operations are FederateSQLStore's; SQLite supplies its dialect, its one
/// connection under the store's lock on the store's thread, and `BEGIN IMMEDIATE` transactions.
extension SQLiteAccountStore: SQLAccountStore {
    /// `SQLDialect.sqlite`.
    package var dialect: SQLDialect { .sqlite }

    /// Runs `body` on the store's thread, holding the connection; each statement commits on its own.
    package func withConnection<T: Sendable>(_ body: (SQLiteStatements) async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await accountOperation { () async throws(FederateError) in try await body(SQLiteStatements(database: database)) }
    }

    /// Truncates the write-ahead log after a checkpoint, so that no page written before secrets
    /// were erased stays in it (`secure_delete` keeps the database file itself clean).
    package func eraseJournaledSecrets() async throws(FederateError) {
        try await accountOperation { () async throws(FederateError) in _ = try database.rows("PRAGMA wal_checkpoint(TRUNCATE)", []) }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the store's thread, holding the connection.
    package func withTransaction<T: Sendable>(_ body: (SQLiteStatements) async throws(FederateError) -> T) async throws(FederateError) -> T
    {
        try await accountOperation { () async throws(FederateError) in
            try await transaction { () async throws(FederateError) in try await body(SQLiteStatements(database: database)) }
        }
    }
}

extension SQLDialect {
    /// SQLite's: `?` placeholders and bare table names. A `BEGIN IMMEDIATE` transaction
    /// holds the file's write lock, so rows need no lock of their own; `MAX` of two values
    /// is scalar; identities are ordered by `rowid`; a `WITH` clause cannot write.
    package static let sqlite = SQLDialect(
        placeholder: .questionMark, tablePrefix: "", userRowLock: "", greatest: "MAX", identityInsertionOrder: "i.rowid",
        writesInCommonTableExpressions: false)
}

/// The store's connection as the shared operations use it, while the store's lock is held.
package struct SQLiteStatements: SQLConnection {
    let database: SQLiteDatabase

    /// Runs one statement; SQLite errors become account errors (``SQLiteDatabase/translate(code:message:)``).
    package func rows(_ sql: String, _ values: [SQLValue]) async throws(FederateError) -> [SQLiteCells] {
        try database.rows(sql, values)
    }
}
