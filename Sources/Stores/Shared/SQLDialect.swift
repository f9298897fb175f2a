/// What an SQL database does differently in the statements the shared operations write.
/// Each store defines its own (FederateSQLite's `SQLDialect.sqlite`, FederatePostgres's
/// `SQLDialect.postgres(schema:)`).
package struct SQLDialect: Sendable {
    /// How placeholders are written.
    package enum Placeholder: Sendable {
        /// `?`, bound in order (SQLite).
        case questionMark
        /// `$1`, `$2`, … (PostgreSQL).
        case dollarNumber
    }

    /// How placeholders are written.
    package var placeholder: Placeholder
    /// What precedes a table's name: empty, or a schema such as `"public".`.
    package var tablePrefix: String
    /// Appended to the `SELECT` that finds a user's row in a write transaction, to lock
    /// that row until the transaction ends (`FOR UPDATE`); empty where the transaction
    /// already holds the database's write lock (SQLite's `BEGIN IMMEDIATE`).
    package var userRowLock: String
    /// The function giving the larger of two values: `MAX` (SQLite's scalar form) or `GREATEST`.
    package var greatest: String
    /// The column that orders one user's identities linked at the same instant in
    /// insertion order (`i.rowid`, `i.id`).
    package var identityInsertionOrder: String
    /// Whether a `WITH` clause may write (PostgreSQL): creating a user with one identity,
    /// and recording a sign-in, then take one statement instead of a transaction of two.
    package var writesInCommonTableExpressions: Bool

    /// Creates a dialect.
    package init(
        placeholder: Placeholder, tablePrefix: String, userRowLock: String, greatest: String, identityInsertionOrder: String,
        writesInCommonTableExpressions: Bool
    ) {
        self.placeholder = placeholder
        self.tablePrefix = tablePrefix
        self.userRowLock = userRowLock
        self.greatest = greatest
        self.identityInsertionOrder = identityInsertionOrder
        self.writesInCommonTableExpressions = writesInCommonTableExpressions
    }

    /// The placeholder of the `number`th value (from 1).
    package func placeholder(_ number: Int) -> String {
        var text = ""
        appendPlaceholder(number, to: &text)
        return text
    }

    /// Appends the placeholder of the `number`th value (from 1) to `sql`.
    func appendPlaceholder(_ number: Int, to sql: inout String) {
        switch placeholder {
        case .questionMark:
            sql += "?"
        case .dollarNumber:
            sql += "$"
            sql += String(number)
        }
    }

    /// The table's name as statements write it.
    package func name(of table: SQLTable) -> String { tablePrefix + table.rawValue }
}
