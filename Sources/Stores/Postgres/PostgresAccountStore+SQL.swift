package import FederateSQLStore
package import FederateTokens
import NIOCore
import PostgresNIO

/// The account operations are FederateSQLStore's; PostgreSQL supplies its dialect, pooled
/// connections, and transactions that lock the user's row.
extension PostgresAccountStore: SQLAccountStore {
    /// Runs `body` on one pooled connection; each statement commits on its own.
    package func withConnection<T: Sendable>(_ body: (PostgresStatements) async throws(FederateError) -> T) async throws(FederateError) -> T
    {
        try await connection { (connection) async throws(FederateError) in
            try await body(PostgresStatements(store: self, connection: connection, inTransaction: false))
        }
    }

    /// Runs `body` in a transaction on one pooled connection.
    package func withTransaction<T: Sendable>(
        _ body: (PostgresStatements) async throws(FederateError) -> T
    ) async throws(FederateError) -> T {
        try await transaction { (connection) async throws(FederateError) in
            try await body(PostgresStatements(store: self, connection: connection, inTransaction: true))
        }
    }
}

extension SQLDialect {
    /// PostgreSQL's, with tables in `schema` (a valid identifier, ``PostgresSchema/isValid(_:)``):
    /// `$n` placeholders; write transactions lock the user's row (`FOR UPDATE`), as the
    /// default isolation (read committed) does not; `GREATEST`; identities ordered by their
    /// `id`; and writes in `WITH` clauses.
    package static func postgres(schema: String) -> SQLDialect {
        SQLDialect(
            placeholder: .dollarNumber, tablePrefix: "\"\(schema)\".", userRowLock: "FOR UPDATE", greatest: "GREATEST",
            identityInsertionOrder: "i.id", writesInCommonTableExpressions: true)
    }
}

/// A pooled connection as the shared operations use it.
package struct PostgresStatements: SQLConnection {
    let store: PostgresAccountStore
    let connection: PostgresConnection
    /// Whether the statements run in a transaction, which an error ends.
    let inTransaction: Bool

    /// Runs one statement, prepared on this connection the first time
    /// (``PostgresPreparedStatements``); unique violations become account errors
    /// (``PostgresAccountStore/translate(_:)``).
    ///
    /// When the connection lost its prepared statements (SQLSTATE 26000, a `DISCARD ALL`) or
    /// a plan no longer fits the schema (0A000), they are prepared again: at once, outside a
    /// transaction; on the next run, inside one (the error has ended it).
    package func rows(_ sql: String, _ values: [SQLValue]) async throws(FederateError) -> [PostgresCells] {
        do {
            return try await run(sql, values)
        } catch {
            let failure = PostgresAccountStore.failure(error)
            guard failure.lostStatements, let prepared = store.preparedStatements else { throw failure.error }
            prepared.forget(connection)
            guard !inTransaction else { throw failure.error }
            do {
                return try await run(sql, values)
            } catch {
                throw PostgresAccountStore.failure(error).error
            }
        }
    }

    private func run(_ sql: String, _ values: [SQLValue]) async throws -> [PostgresCells] {
        if let statement = try await store.preparedStatements?.statement(sql, on: connection) {
            return try await statement.execute(values.map(PostgresData.init)).get().map {
                PostgresCells(row: $0.makeRandomAccess(), preparedStatement: true)
            }
        }
        var binds = PostgresBindings(capacity: values.count)
        for value in values { binds.append(value) }
        return try await store.rows(PostgresQuery(unsafeSQL: sql, binds: binds), on: connection)
            .map { PostgresCells(row: $0.makeRandomAccess(), preparedStatement: false) }
    }
}

/// A result row, decoded as the PostgreSQL schema types each column.
package struct PostgresCells: SQLRow {
    let row: PostgresRandomAccessRow
    /// The row came from a statement prepared with `PostgresDatabase.prepare(query:)`. Its
    /// values are binary, as every Bind that postgres-nio sends asks, but their row description is
    /// the one PostgreSQL gave before the Bind, which says text; postgres-nio 1.33 keeps it as is.
    /// The conformance suite decodes every column type through this path, so a change there fails it.
    let preparedStatement: Bool

    /// A `text` column.
    package func text(_ column: String) throws(FederateError) -> String? { try decode(column, as: String?.self) }
    /// A `double precision` column.
    package func real(_ column: String) throws(FederateError) -> Double? { try decode(column, as: Double?.self) }
    /// A `boolean` column.
    package func bool(_ column: String) throws(FederateError) -> Bool? { try decode(column, as: Bool?.self) }
    /// A `bytea` column.
    package func bytes(_ column: String) throws(FederateError) -> [UInt8]? {
        try decode(column, as: ByteBuffer?.self).map { Array(buffer: $0) }
    }

    /// The column's value as `type`; a missing column or an undecodable value is `account_store_failed`.
    private func decode<T: PostgresDecodable>(_ column: String, as type: T.Type) throws(FederateError) -> T {
        guard row.contains(column) else { throw FederateError(.accountStoreFailed, "PostgreSQL: no column \(column) in the result") }
        var cell = row[column]
        if preparedStatement { cell.format = .binary }
        do {
            return try cell.decode(T.self)
        } catch {
            throw FederateError(.accountStoreFailed, "PostgreSQL: column \(column) is not a \(T.self)", cause: error)
        }
    }
}

extension PostgresData {
    /// `value` for a prepared statement, whose parameter types PostgreSQL inferred from the
    /// schema; `NULL` untyped.
    init(_ value: SQLValue) {
        switch value {
        case .text(let text?): self.init(string: text)
        case .real(let number?): self.init(double: number)
        case .text(nil), .real(nil): self = .null
        case .bool(let flag): self.init(bool: flag)
        case .bytes(let bytes): self.init(bytes: bytes)
        }
    }
}

extension PostgresBindings {
    /// Binds `value` as the PostgreSQL schema types it; `NULL` untyped, for the server to infer.
    mutating func append(_ value: SQLValue) {
        switch value {
        case .text(let text?): append(text)
        case .real(let number?): append(number)
        case .text(nil), .real(nil): appendNull()
        case .bool(let flag): append(flag)
        case .bytes(let bytes): append(ByteBuffer(bytes: bytes))
        }
    }
}
