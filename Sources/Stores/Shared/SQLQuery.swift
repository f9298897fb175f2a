import Foundation

/// One SQL statement (or a piece of one) with its values, written once for every dialect.
/// Interpolated values become placeholders and tables are named when the statement is
/// rendered in a store's ``SQLDialect``:
///
/// ```swift
/// let query: SQLQuery = "SELECT uid FROM \(table: .users) WHERE uid = \(uid)"
/// query.rendered(in: dialect)  // ("SELECT uid FROM users WHERE uid = ?", [.text(uid)]) on SQLite
/// ```
///
/// An interpolated `String` is always a bound value, never SQL text; SQL text that is not a
/// literal goes through `\(unescaped:)`, for the dialect's keywords only.
struct SQLQuery: Sendable, ExpressibleByStringInterpolation {
    /// A piece of a statement.
    enum Fragment: Sendable, Hashable {
        /// SQL text, as written.
        case sql(String)
        /// A value, written as a placeholder.
        case value(SQLValue)
        /// A table, named by the dialect.
        case table(SQLTable)
    }

    /// The pieces, in order.
    private(set) var fragments: [Fragment]

    /// SQL text with no values.
    init(stringLiteral sql: String) {
        fragments = [.sql(sql)]
    }

    /// SQL text with interpolated values, tables and pieces.
    init(stringInterpolation: StringInterpolation) {
        fragments = stringInterpolation.fragments
    }

    /// `queries` one after the other, with `separator` (SQL text) between them.
    init(joining queries: [SQLQuery], separator: String) {
        fragments = []
        for (index, query) in queries.enumerated() {
            if index > 0 { fragments.append(.sql(separator)) }
            fragments += query.fragments
        }
    }

    /// The SQL text in `dialect`, and the values in placeholder order.
    func rendered(in dialect: SQLDialect) -> (sql: String, values: [SQLValue]) {
        var length = 0
        var valueCount = 0
        for fragment in fragments {
            switch fragment {
            case .sql(let text): length += text.utf8.count
            case .value: valueCount += 1
            case .table(let table): length += dialect.tablePrefix.utf8.count + table.rawValue.utf8.count
            }
        }
        // One allocation for each, written in place: a sign-in's statement has some sixty pieces.
        var sql = ""
        sql.reserveCapacity(length + 4 * valueCount)
        var values: [SQLValue] = []
        values.reserveCapacity(valueCount)
        for fragment in fragments {
            switch fragment {
            case .sql(let text):
                sql += text
            case .value(let value):
                values.append(value)
                dialect.appendPlaceholder(values.count, to: &sql)
            case .table(let table):
                sql += dialect.tablePrefix
                sql += table.rawValue
            }
        }
        return (sql, values)
    }

    /// Builds a statement from a string literal and its interpolations.
    struct StringInterpolation: StringInterpolationProtocol {
        /// The pieces so far.
        private(set) var fragments: [Fragment] = []

        /// Starts an empty statement.
        init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(2 * interpolationCount + 1)
        }

        /// SQL text.
        mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { fragments.append(.sql(literal)) }
        }

        /// A text value (`NULL` when `nil`).
        mutating func appendInterpolation(_ text: String?) {
            fragments.append(.value(.text(text)))
        }

        /// A Boolean value.
        mutating func appendInterpolation(_ flag: Bool) {
            fragments.append(.value(.bool(flag)))
        }

        /// A date, as seconds since 1970 (`NULL` when `nil`).
        mutating func appendInterpolation(_ date: Date?) {
            fragments.append(.value(.real(date?.timeIntervalSince1970)))
        }

        /// A real number (a count, such as a version).
        mutating func appendInterpolation(_ number: Double) {
            fragments.append(.value(.real(number)))
        }

        /// Bytes.
        mutating func appendInterpolation(bytes: [UInt8]) {
            fragments.append(.value(.bytes(bytes)))
        }

        /// Text values separated by commas, for `IN (…)`.
        mutating func appendInterpolation(list texts: [String]) {
            appendInterpolation(SQLQuery(joining: texts.map { "\($0)" }, separator: ", "))
        }

        /// A table, named by the dialect.
        mutating func appendInterpolation(table: SQLTable) {
            fragments.append(.table(table))
        }

        /// A piece of a statement, with its values.
        mutating func appendInterpolation(_ query: SQLQuery) {
            fragments += query.fragments
        }

        /// SQL text that is not a literal: a dialect's keyword or function name, never input.
        mutating func appendInterpolation(unescaped sql: String) {
            fragments.append(.sql(sql))
        }
    }
}
