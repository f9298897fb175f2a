import Foundation

/// A throwaway PostgreSQL 15 cluster of a test's own (`scripts/postgres-test-cluster.sh`),
/// separate from the shared ``PostgresTestServer``, for a test that stops the database under
/// a running store. Needs the PostgreSQL 15 binaries (`FEDERATE_POSTGRES_BIN` or
/// `/usr/lib/postgresql/15/bin`); removed when the test process exits.
public struct DedicatedPostgresCluster: Sendable {
    /// Where to connect (user `postgres`, no password, database `postgres`).
    public let endpoint: PostgresTestServer.Endpoint
    /// The cluster's directory.
    public let directory: String

    /// Starts a cluster on a free loopback port.
    public static func start() async throws -> DedicatedPostgresCluster {
        let root = PostgresTestServer.repositoryRoot
        let output = await ExternalProcess.run(
            [
                "bash", root.appendingPathComponent("scripts/postgres-test-cluster.sh").path,
                String(ProcessInfo.processInfo.processIdentifier),
            ],
            in: root, timeout: 120)
        let fields = output.stdout.split(whereSeparator: \.isWhitespace)
        guard output.status == 0, fields.count == 2, let port = Int(fields[0]) else {
            throw PostgresTestServer.Unavailable(
                description:
                    "a dedicated PostgreSQL cluster could not be started: exit \(output.status): \(ExternalProcess.tail(output.stderr, 2000))"
            )
        }
        return DedicatedPostgresCluster(
            endpoint: PostgresTestServer.Endpoint(host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres"),
            directory: String(fields[1]))
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`), as a crash or an outage would;
    /// `true` when it stopped.
    public func stop() async -> Bool {
        let bin = ProcessInfo.processInfo.environment["FEDERATE_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"
        var command = [bin + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"]
        if getuid() == 0 { command = ["runuser", "-u", "postgres", "--"] + command }
        let output = await ExternalProcess.run(command, in: URL(fileURLWithPath: directory), timeout: 60)
        return output.status == 0
    }
}
