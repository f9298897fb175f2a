import Foundation
import Synchronization

/// A PostgreSQL server for tests: `FEDERATE_TEST_POSTGRES_URL` when set
/// (`postgres://user[:password]@host:port/database`), otherwise a throwaway PostgreSQL 15
/// cluster on 127.0.0.1 started once per test process by `scripts/postgres-test-cluster.sh`
/// and stopped when the process exits. When neither works, ``endpoint()`` throws an error
/// that says why, so PostgreSQL tests fail rather than skip.
public enum PostgresTestServer {
    /// Where to connect.
    public struct Endpoint: Sendable, Hashable {
        /// The host.
        public let host: String
        /// The port.
        public let port: Int
        /// The user name.
        public let username: String
        /// The password, if any.
        public let password: String?
        /// The database.
        public let database: String
    }

    /// Why PostgreSQL is unavailable.
    public struct Unavailable: Error, CustomStringConvertible {
        /// The explanation.
        public let description: String

        /// Creates the error.
        public init(description: String) { self.description = description }
    }

    private static let started = Mutex<Task<Endpoint, any Error>?>(nil)

    /// The server, starting the throwaway cluster on first use.
    public static func endpoint() async throws -> Endpoint {
        let task = started.withLock { task in
            if let task { return task }
            let new = Task { try await resolve() }
            task = new
            return new
        }
        return try await task.value
    }

    private static func resolve() async throws -> Endpoint {
        if let url = ProcessInfo.processInfo.environment["FEDERATE_TEST_POSTGRES_URL"], !url.isEmpty {
            guard let components = URLComponents(string: url), let host = components.host,
                ["postgres", "postgresql"].contains(components.scheme)
            else {
                throw Unavailable(description: "FEDERATE_TEST_POSTGRES_URL is not a postgres:// URL")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            return Endpoint(
                host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
                database: database.isEmpty ? "postgres" : database)
        }
        let script = repositoryRoot.appendingPathComponent("scripts/postgres-test-cluster.sh").path
        let result = await BlockingThread.run { () -> (Int32, String, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [script, String(ProcessInfo.processInfo.processIdentifier)]
            let stdout = ChildProcesses.pipe(), stderr = ChildProcesses.pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            process.standardInput = FileHandle.nullDevice
            do {
                try ChildProcesses.start(process)
            } catch {
                return (-1, "", "cannot run \(script): \(error)")
            }
            let out = stdout.fileHandleForReading.readDataToEndOfFile()
            let err = stderr.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
        let fields = result.1.split(separator: " ")
        guard result.0 == 0, let first = fields.first, let port = Int(first.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Unavailable(
                description: """
                    PostgreSQL could not be started for the tests (set FEDERATE_TEST_POSTGRES_URL, or install postgresql-15 so that \
                    /usr/lib/postgresql/15/bin/initdb exists): exit \(result.0): \(result.2.suffix(2000))
                    """)
        }
        return Endpoint(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres")
    }

    /// The package root (this file is Tests/FederateTestSupport/PostgresTestServer.swift).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
