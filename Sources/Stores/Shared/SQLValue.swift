/// A value bound to a statement's placeholder. Each store turns it into its driver's value;
/// `nil` binds SQL `NULL`.
package enum SQLValue: Sendable, Hashable {
    /// Text.
    case text(String?)
    /// A real number; dates are seconds since 1970 (every SQL store keeps them so).
    case real(Double?)
    /// A Boolean (SQLite: the integer 0 or 1; PostgreSQL: `boolean`).
    case bool(Bool)
    /// Bytes (SQLite: a blob; PostgreSQL: `bytea`).
    case bytes([UInt8])
}
