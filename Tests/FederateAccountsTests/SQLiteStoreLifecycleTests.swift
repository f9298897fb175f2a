import Federate
@testable import FederateSQLite
import FederateSQLStore
import Foundation
import Synchronization
import Testing

/// The store's own connection on the SQLite C API: its lifecycle, and values that a driver
/// could get wrong at the C boundary.
@Suite("SQLite store lifecycle")
struct SQLiteStoreLifecycleTests {
    /// A store released without `close()` (an error path, a forgotten close) closes its file
    /// as it is released: the last connection to close checkpoints and removes the WAL file.
    @Test func aStoreReleasedUnclosedClosesItsFile() async throws {
        let path = temporaryPath("unclosed")
        defer { removeDatabase(path) }
        do {
            let store = try await SQLiteAccountStore.open(path: path)
            _ = try await store.user(uid: "nobody")
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        var waited = 0
        while FileManager.default.fileExists(atPath: path + "-wal"), waited < 200 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the released store left its connection open")
        let again = try await SQLiteAccountStore.open(path: path)
        #expect(try await again.user(uid: "nobody") == nil)
        try await again.close()
        try await again.close()  // closing twice does nothing
        await #expect(throws: FederateError.self) { try await again.user(uid: "nobody") }
    }

    /// Text reaches the file and comes back byte for byte: an empty string stays empty (an
    /// empty buffer has no address, which SQLite would bind as `NULL`), and a NUL inside
    /// text does not cut it short.
    @Test func textAndBytesRoundTripExactly() async throws {
        let path = temporaryPath("values")
        defer { removeDatabase(path) }
        let database = try SQLiteDatabase(path: path)
        try database.run("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT, bytes BLOB)")
        let samples: [(String, [UInt8])] = [("", []), ("a\u{0}b", [0, 1, 0]), ("K\u{212A}é🙂", Array(repeating: 0xFF, count: 70_000))]
        for (index, (text, bytes)) in samples.enumerated() {
            try database.run("INSERT INTO t (id, text, bytes) VALUES (\(index), ?, ?)", [.text(text), .bytes(bytes)])
            let row = try #require(
                try database.rows("SELECT text, bytes, text IS NULL AS text_is_null FROM t WHERE id = \(index)", []).first)
            #expect(row.text("text") == text)
            #expect(row.bool("text_is_null") == false)
            #expect(row.bytes("bytes") == bytes)
        }
        try database.run("INSERT INTO t (id, text) VALUES (9, ?)", [.text(nil)])
        #expect(try database.rows("SELECT text FROM t WHERE id = 9", []).first?.text("text") == nil)
        database.close()
    }

    /// Only one statement is compiled from a string: a second is refused, not dropped.
    @Test func aSecondStatementIsRefusedNotDropped() throws {
        let path = temporaryPath("two")
        defer { removeDatabase(path) }
        let database = try SQLiteDatabase(path: path)
        #expect(throws: FederateError.self) { try database.run("CREATE TABLE a (x); CREATE TABLE b (x)") }
        #expect(try database.rows("SELECT name FROM sqlite_master", []).isEmpty)
        try database.run("CREATE TABLE a (x);  \n")  // trailing white space is one statement
    }

    /// Past the kept statements, statements are prepared per run and still answer; a failed
    /// statement leaves the kept one usable.
    @Test func statementsBeyondTheKeptOnesStillRun() throws {
        let path = temporaryPath("many")
        defer { removeDatabase(path) }
        let database = try SQLiteDatabase(path: path)
        try database.run("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        for value in 0..<200 {
            try database.run("INSERT INTO t (x) VALUES (\(value))")
        }
        #expect(try database.rows("SELECT COUNT(*) AS n FROM t", []).first?.integer("n") == 200)
        #expect(throws: FederateError.self) { try database.run("INSERT INTO t (x) VALUES (?)", [.real(1)]) }
        try database.run("INSERT INTO t (x) VALUES (?)", [.real(500)])
        #expect(try database.rows("SELECT COUNT(*) AS n FROM t", []).first?.integer("n") == 201)
    }

    /// A store waiting for another connection's write lock waits on its own thread: with more
    /// stores waiting than Swift has cooperative threads, other tasks still run. (With the
    /// statements run on Swift's threads instead, checked by hand, the probe runs only once
    /// waits time out, and the test fails with "database is locked".)
    @Test func aBusyWaitDoesNotHoldSwiftsThreads() async throws {
        let path = temporaryPath("busy")
        defer { removeDatabase(path) }
        var stores: [SQLiteAccountStore] = []
        for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2) {
            stores.append(try await SQLiteAccountStore.open(path: path, busyTimeout: .seconds(5)))
        }
        let blocker = try SQLiteDatabase(path: path)
        try blocker.run("BEGIN IMMEDIATE")  // holds the file's write lock
        let finished = Flag()
        let waiting = stores
        let signIns = Task {
            defer { finished.value.withLock { $0 = true } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, store) in waiting.enumerated() {
                    group.addTask {
                        _ = try await AccountService(store: store).signIn(with: TestCredential.make("google.com", "g-\(index)"))
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(200))  // every sign-in is waiting for the lock by now
        let probes = await withTaskGroup(of: Int.self) { group in
            for value in 0..<64 {
                group.addTask {
                    await Task.yield()
                    return value
                }
            }
            return await group.reduce(0, +)
        }
        #expect(probes == 64 * 63 / 2)
        #expect(!finished.value.withLock { $0 }, "the sign-ins ended before the lock was released: their waits held Swift's threads")
        try blocker.run("ROLLBACK")
        do {
            try await signIns.value
        } catch {
            // A wait that held one of Swift's threads kept the probe from running until it had
            // timed out; the lock was released only after the probe.
            Issue.record("a sign-in gave up waiting for the lock before the probe ran: \(error)")
        }
        #expect(try await stores[0].user(providerID: "google.com", subject: "g-0") != nil)
        blocker.close()
        for store in stores { try await store.close() }
    }

    /// The caller's code after a store operation runs on Swift's threads again, not on the
    /// store's one thread, where it would queue behind every other operation's statements.
    @Test func callersContinueOffTheStoresThread() async throws {
        let path = temporaryPath("thread")
        defer { removeDatabase(path) }
        let store = try await SQLiteAccountStore.open(path: path)
        for _ in 0..<20 {
            #expect(await store.operation { store.thread.isCurrent })
            _ = try await store.user(uid: "nobody")
            #expect(!store.thread.isCurrent)
        }
        try await store.close()
    }

    private final class Flag: Sendable {
        let value = Mutex(false)
    }

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("federate-\(name)-\(UUID().uuidString).sqlite").path
    }

    private func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
