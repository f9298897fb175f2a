import Federate
import FederateSQLite
import Foundation
import Testing

/// `ping()`, the readiness round trip: every store answers it, and a closed SQLite store
/// fails it (and every other operation) with `account_store_failed`.
@Suite("Store ping")
struct StorePingTests {
    @Test(arguments: StoreKind.allCases)
    func everyStoreAnswersPing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.ping()
        }
    }

    @Test func aClosedSQLiteStoreFailsPing() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("federate-ping-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await SQLiteAccountStore.open(path: path)
        try await store.ping()
        try await store.close()
        let refused = await #expect(throws: FederateError.self) { try await store.ping() }
        #expect(refused?.code == .accountStoreFailed)
        let lookup = await #expect(throws: FederateError.self) { _ = try await store.user(uid: "nobody") }
        #expect(lookup?.code == .accountStoreFailed)
    }
}
