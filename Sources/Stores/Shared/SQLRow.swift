package import FederateTokens
package import Foundation

/// A result row as the shared operations read it: columns by name, `nil` for `NULL`. Each
/// store reads its driver's row the way its schema stores the value.
package protocol SQLRow {
    /// A text column.
    func text(_ column: String) throws(FederateError) -> String?
    /// A real-number column.
    func real(_ column: String) throws(FederateError) -> Double?
    /// A Boolean column (SQLite: an integer, `true` unless 0).
    func bool(_ column: String) throws(FederateError) -> Bool?
    /// A bytes column.
    func bytes(_ column: String) throws(FederateError) -> [UInt8]?
}

extension SQLRow {
    /// A date column, kept as seconds since 1970.
    package func date(_ column: String) throws(FederateError) -> Date? {
        try real(column).map(Date.init(timeIntervalSince1970:))
    }
}
