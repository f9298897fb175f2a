import CSQLite
import FederateSQLStore
import FederateTokens
import Synchronization

/// One connection to an SQLite file, on the SQLite C API: statements are prepared once and
/// kept, values are bound in place, and rows are read straight into ``SQLiteCells``.
///
/// The handle lives behind a `Mutex`, so one statement runs at a time; the store's
/// ``AsyncLock`` keeps a transaction's statements together, and its ``SQLiteThread`` keeps
/// the blocking calls off Swift's cooperative threads.
final class SQLiteDatabase: Sendable {
    private let connection: Mutex<Connection>

    /// Opens (creating if needed) the file at `path`. SQLite's own mutexes are off: the
    /// `Mutex` above serializes every use.
    init(path: String) throws(FederateError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw FederateError(.accountStoreFailed, "cannot open the SQLite database: \(message)")
        }
        sqlite3_extended_result_codes(handle, 1)
        connection = Mutex(Connection(handle: handle))
    }

    deinit {
        connection.withLock { $0.close() }
    }

    /// Runs one statement with `values` bound to its `?` placeholders in order, and returns its rows.
    func rows(_ sql: String, _ values: [SQLValue]) throws(FederateError) -> [SQLiteCells] {
        try connection.withLock { (connection) throws(FederateError) in try connection.rows(sql, values) }
    }

    /// Runs one statement for its effect.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(FederateError) {
        _ = try rows(sql, values)
    }

    /// Waits up to `milliseconds` for another connection's lock before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) throws(FederateError) {
        try connection.withLock { (connection) throws(FederateError) in
            guard let handle = connection.handle else { throw SQLiteDatabase.closedError }
            sqlite3_busy_timeout(handle, milliseconds)
        }
    }

    /// Finalizes the kept statements and closes the file. Closing twice does nothing.
    func close() {
        connection.withLock { $0.close() }
    }

    static let closedError = FederateError(.accountStoreFailed, "the SQLite database is closed")

    /// An SQLite error as an account error: a unique violation becomes its
    /// ``UniqueConstraint/error``; a lock another connection holds past the busy timeout, or a
    /// file that cannot be read or written now, `store_unavailable`; a missing table
    /// `store_schema_mismatch`; anything else is `account_store_failed`.
    static func translate(code: Int32, message: String) -> FederateError {
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_PROTOCOL:
            return FederateError(.storeUnavailable, "SQLite: \(message.prefix(200))")
        case SQLITE_ERROR where message.hasPrefix("no such table") || message.hasPrefix("no such column"):
            return FederateError(.storeSchemaMismatch, "SQLite: \(message.prefix(200)): the database's tables are not this release's")
        default:
            break
        }
        // SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY, C macros Swift does not import.
        if code == SQLITE_CONSTRAINT | (8 << 8) || code == SQLITE_CONSTRAINT | (6 << 8) {
            if message.contains("UNIQUE constraint failed: identities.provider_id, identities.subject") {
                return UniqueConstraint.identityProviderSubject.error
            }
            if message.contains("UNIQUE constraint failed: identities.user_uid, identities.provider_id") {
                return UniqueConstraint.identityUserProvider.error
            }
            if message.contains("UNIQUE constraint failed: users.email_normalized") {
                return UniqueConstraint.userEmail.error
            }
        }
        return FederateError(.accountStoreFailed, "SQLite: \(message.prefix(200))")
    }
}

/// The handle and its prepared statements; only used under ``SQLiteDatabase``'s `Mutex`.
private struct Connection: ~Copyable {
    /// At most this many statements are kept prepared; others are prepared for each run.
    static let keptStatements = 64

    var handle: OpaquePointer?
    var statements: [String: OpaquePointer] = [:]

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    mutating func close() {
        guard let handle else { return }
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    mutating func rows(_ sql: String, _ values: [SQLValue]) throws(FederateError) -> [SQLiteCells] {
        guard let handle else { throw SQLiteDatabase.closedError }
        let kept = statements[sql]
        let statement: OpaquePointer
        if let kept { statement = kept } else { statement = try Self.prepare(sql, on: handle) }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            if kept == nil {
                if statements.count < Self.keptStatements {
                    statements[sql] = statement
                } else {
                    sqlite3_finalize(statement)
                }
            }
        }
        try Self.bind(values, to: statement, on: handle)
        return try Self.step(statement, on: handle)
    }

    private static func prepare(_ sql: String, on handle: OpaquePointer) throws(FederateError) -> OpaquePointer {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = sql.withCString { sqlite3_prepare_v3(handle, $0, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail) }
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(on: handle)
        }
        // Only the first statement of a string is compiled: refuse to drop the rest silently.
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) {
            sqlite3_finalize(statement)
            throw FederateError(.accountStoreFailed, "SQLite: one statement at a time")
        }
        return statement
    }

    /// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    private static func bind(_ values: [SQLValue], to statement: OpaquePointer, on handle: OpaquePointer) throws(FederateError) {
        for (offset, value) in values.enumerated() {
            guard let index = Int32(exactly: offset + 1) else { throw FederateError(.accountStoreFailed, "SQLite: too many values") }
            let status: Int32
            switch value {
            case .text(nil), .real(nil):
                status = sqlite3_bind_null(statement, index)
            case .text(let text?):
                var text = text
                status = text.withUTF8 { bytes in
                    // An empty buffer may have no address, which SQLite would bind as NULL.
                    guard let address = bytes.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, nil) }
                    return address.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        sqlite3_bind_text64(statement, index, $0, UInt64(bytes.count), transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .real(let number?):
                status = sqlite3_bind_double(statement, index, number)
            case .bool(let flag):
                status = sqlite3_bind_int64(statement, index, flag ? 1 : 0)
            case .bytes(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    guard let address = buffer.baseAddress else { return sqlite3_bind_zeroblob(statement, index, 0) }
                    return sqlite3_bind_blob64(statement, index, address, UInt64(buffer.count), transient)
                }
            }
            guard status == SQLITE_OK else { throw error(on: handle) }
        }
    }

    private static func step(_ statement: OpaquePointer, on handle: OpaquePointer) throws(FederateError) -> [SQLiteCells] {
        var rows: [SQLiteCells] = []
        var columns: SQLiteColumns?
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let names = columns ?? SQLiteColumns(statement)
                columns = names
                rows.append(SQLiteCells(columns: names, values: (0..<names.count).map { SQLiteValue(statement, column: Int32($0)) }))
            case SQLITE_DONE:
                return rows
            default:
                throw error(on: handle)
            }
        }
    }

    /// The connection's last error as an account error (``SQLiteDatabase/translate(code:message:)``).
    private static func error(on handle: OpaquePointer) -> FederateError {
        SQLiteDatabase.translate(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }
}
