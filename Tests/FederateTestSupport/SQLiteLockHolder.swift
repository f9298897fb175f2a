import Foundation

/// Another process holding an SQLite file's write lock: Python's `sqlite3` module begins an
/// exclusive transaction, writes in it, and waits. Until ``release()``, no other connection
/// can write the file (`SQLITE_BUSY` once its busy timeout passes; in WAL mode, readers go
/// on); then the transaction is rolled back and the process exits.
public final class SQLiteLockHolder: Sendable {
    private let process: InteractiveCLI

    private static let script = """
        import sqlite3, sys
        connection = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
        connection.execute("BEGIN EXCLUSIVE")
        connection.execute("CREATE TABLE IF NOT EXISTS lock_holder (x)")
        print("locked", flush=True)
        sys.stdin.readline()
        connection.execute("ROLLBACK")
        """

    private init(process: InteractiveCLI) {
        self.process = process
    }

    /// Locks the file at `path`; returns once the lock is held.
    public static func lock(_ path: String) async throws -> SQLiteLockHolder {
        let process = try InteractiveCLI(
            executable: "/usr/bin/env", arguments: ["python3", "-c", script, path], readStandardError: true, lifetime: 300)
        guard let line = await process.nextLine(), line == "locked" else {
            let error = await process.nextErrorLine() ?? "no output"
            throw CocoaError(.fileLocking, userInfo: [NSLocalizedDescriptionKey: "the lock holder did not lock \(path): \(error)"])
        }
        return SQLiteLockHolder(process: process)
    }

    /// Rolls the transaction back and ends the process, releasing the lock.
    public func release() async {
        process.send("")
        _ = await process.finish()
    }
}
