import Federate
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve` and `federate dev-provider` start and stop the way an operator expects:
/// a clean exit on SIGINT and SIGTERM (the store closed, no trap), and `address_in_use` with
/// exit 1 on a taken port, never a crash or a silent hang.
@Suite("Process lifecycle")
struct LifecycleTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func serveStopsCleanlyOnSignal(signal: Int32) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--port", "0"], directory: directory.path)
        // The first line says it listens (its SQLite store is open by then).
        let started = try #require(await serve.nextLine())
        #expect(started.contains("\"url\""))
        let end = await serve.send(signal: signal)
        #expect(end.exited, "a signal or a trap ended serve instead of a clean exit")
        #expect(end.status == 0)
        // The store was closed: SQLite left no WAL file behind.
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("federate-demo.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("federate-demo.sqlite-wal").path))
    }

    @Test(arguments: ["serve", "dev-provider"])
    func aTakenPortIsAddressInUse(command: String) async throws {
        let taken = try await LoopbackHTTPServer.start { _ in .status(200) }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, command, "--port", String(taken.port)], in: directory, timeout: 60)
        try await taken.stop()
        #expect(!output.timedOut, "\(command) hung on a taken port")
        #expect(output.status == 1, "\(ExternalProcess.tail(output.stderr))")
        let printed = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(printed["error"]?.stringValue == "address_in_use", "\(output.stdout)")
        // serve checks the port before it starts anything: no store was opened.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("federate-demo.sqlite").path))
    }
}
