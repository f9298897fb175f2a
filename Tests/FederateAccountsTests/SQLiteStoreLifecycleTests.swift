import Federate
import FederateSQLite
import Foundation
import Testing

/// A store released without `close()` (an error path, a forgotten close) closes itself in the
/// background: SQLiteNIO traps on a connection deinitialized open, so a trap here would end
/// the test process.
@Suite("SQLite store lifecycle")
struct SQLiteStoreLifecycleTests {
    @Test func aStoreReleasedUnclosedNeverTraps() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("federate-unclosed-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let store = try await SQLiteAccountStore.open(path: path)
            _ = try await store.user(uid: "nobody")
        }
        // The background close has run by the time the file opens again and answers.
        try await Task.sleep(for: .milliseconds(200))
        let again = try await SQLiteAccountStore.open(path: path)
        #expect(try await again.user(uid: "nobody") == nil)
        try await again.close()
        try await again.close()  // closing twice does nothing
    }
}
