package import FederateTokens
package import FederateSQLStore
import NIOCore
import SQLiteNIO

/// The account operations are FederateSQLStore's; SQLite supplies its dialect, its one
/// connection under the store's lock, and `BEGIN IMMEDIATE` transactions.
extension SQLiteAccountStore: SQLAccountStore {
    /// `SQLDialect.sqlite`.
    package var dialect: SQLDialect { .sqlite }

    /// Runs `body` holding the connection; each statement commits on its own.
    package func withConnection<T: Sendable>(_ body: (SQLiteStatements) async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await lock.withLock { () async throws(FederateError) in try await body(SQLiteStatements(store: self)) }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction, holding the connection.
    package func withTransaction<T: Sendable>(_ body: (SQLiteStatements) async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await transaction { () async throws(FederateError) in try await body(SQLiteStatements(store: self)) }
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
    let store: SQLiteAccountStore

    /// Runs one statement; SQLite errors become account errors (``SQLiteAccountStore/translate(_:)``).
    package func rows(_ sql: String, _ values: [SQLValue]) async throws(FederateError) -> [SQLiteCells] {
        try await store.query(sql, values.map(SQLiteData.init)).map(SQLiteCells.init)
    }
}

/// A result row, read as the SQLite schema stores each value.
package struct SQLiteCells: SQLRow {
    let row: SQLiteRow

    /// The text, or `nil` for `NULL`.
    package func text(_ column: String) -> String? {
        guard let data = row.column(column), !data.isNull else { return nil }
        return data.string
    }

    /// The real number, or `nil` for `NULL`.
    package func real(_ column: String) -> Double? {
        guard let data = row.column(column), !data.isNull else { return nil }
        return data.double
    }

    /// `true` unless the integer is 0; `nil` for `NULL`.
    package func bool(_ column: String) -> Bool? {
        row.column(column)?.integer.map { $0 != 0 }
    }

    /// The blob's bytes.
    package func bytes(_ column: String) -> [UInt8]? {
        row.column(column)?.blob.map { Array(buffer: $0) }
    }
}

extension SQLiteData {
    /// `value` as the SQLite schema stores it: Booleans as 0 or 1, dates as real seconds.
    init(_ value: SQLValue) {
        switch value {
        case .text(let text): self = text.map(SQLiteData.text) ?? .null
        case .real(let number): self = number.map(SQLiteData.float) ?? .null
        case .bool(let flag): self = .integer(flag ? 1 : 0)
        case .bytes(let bytes): self = .blob(ByteBuffer(bytes: bytes))
        }
    }
}
