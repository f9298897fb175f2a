import Federate
import FederateSQLite
import FederateVapor
import Foundation
import Testing
import Vapor

/// `LifecycleServices` runs the store for as long as the Vapor application: open while it runs,
/// closed once it has shut down (after its server stopped taking requests).
@Suite("Vapor: the store's lifecycle")
struct VaporLifecycleTests {
    @Test func theStoreClosesWhenTheApplicationShutsDown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-vapor-life-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteAccountStore.open(path: directory.appendingPathComponent("accounts.sqlite").path)
        let app = try await Application.make(.testing)
        app.lifecycle.use(LifecycleServices([store]))
        try await app.asyncBoot()
        try await store.ping()
        try await app.asyncShutdown()
        await #expect(throws: FederateError.self) { try await store.ping() }
    }
}
