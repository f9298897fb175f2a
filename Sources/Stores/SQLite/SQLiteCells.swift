import CSQLite
import FederateSQLStore
import FederateTokens

/// A value as SQLite returned it.
enum SQLiteValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// Column `column` of the row `statement` stands on.
    init(_ statement: OpaquePointer, column: Int32) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT:
            self = .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let text = sqlite3_column_text(statement, column)  // Before the byte count, as SQLite documents.
            let count = Int(sqlite3_column_bytes(statement, column))
            self = .text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            self = .blob(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default:
            self = .null
        }
    }
}

/// A statement's column names, shared by all its rows.
final class SQLiteColumns: Sendable {
    let names: [String]

    var count: Int { names.count }

    init(_ statement: OpaquePointer) {
        names = (0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
    }

    /// The index of the column named `name`.
    func index(of name: String) -> Int? {
        names.firstIndex(of: name)
    }
}

/// A result row, read as the SQLite schema stores each value.
package struct SQLiteCells: SQLRow, Sendable {
    let columns: SQLiteColumns
    let values: [SQLiteValue]

    func value(_ column: String) -> SQLiteValue {
        columns.index(of: column).map { values[$0] } ?? .null
    }

    /// The text, or `nil` for `NULL`.
    package func text(_ column: String) -> String? {
        switch value(column) {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .null, .blob: nil
        }
    }

    /// The real number, or `nil` for `NULL`.
    package func real(_ column: String) -> Double? {
        switch value(column) {
        case .real(let number): number
        case .integer(let number): Double(number)
        case .null, .text, .blob: nil
        }
    }

    /// The integer, or `nil` for `NULL`.
    func integer(_ column: String) -> Int64? {
        if case .integer(let number) = value(column) { number } else { nil }
    }

    /// `true` unless the integer is 0; `nil` for `NULL`.
    package func bool(_ column: String) -> Bool? {
        integer(column).map { $0 != 0 }
    }

    /// The blob's bytes.
    package func bytes(_ column: String) -> [UInt8]? {
        if case .blob(let bytes) = value(column) { bytes } else { nil }
    }
}
