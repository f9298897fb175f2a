import Federate
import FederatePostgres
import FederateTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// One running `PostgresClient` per test process, on ``PostgresTestServer``; each test
/// gets a schema of its own.
enum TestPostgres {
    private static let shared = Mutex<Task<PostgresClient, any Error>?>(nil)

    /// The shared pool (started on first use, running until the process exits).
    static func client() async throws -> PostgresClient {
        let task = shared.withLock { task in
            if let task { return task }
            let new = Task { try await makeClient(maximumConnections: 40) }
            task = new
            return new
        }
        return try await task.value
    }

    /// A new, separately running pool (its own connections), for cross-instance races.
    /// Runs until `body` returns.
    static func withSeparateClient<T>(maximumConnections: Int = 4, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = try await makeClient(maximumConnections: maximumConnections, run: false)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    private static func makeClient(maximumConnections: Int, run: Bool = true) async throws -> PostgresClient {
        let endpoint = try await PostgresTestServer.endpoint()
        var configuration = PostgresClient.Configuration(
            host: endpoint.host, port: endpoint.port, username: endpoint.username, password: endpoint.password,
            database: endpoint.database, tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(
            configuration: configuration, backgroundLogger: Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        if run {
            Task.detached { await client.run() }
            // Prove the server answers, so a dead server fails here with its reason.
            do {
                try await client.query("SELECT 1")
            } catch {
                throw PostgresTestServer.Unavailable(
                    description: "PostgreSQL at \(endpoint.host):\(endpoint.port) does not answer: \(String(reflecting: error))")
            }
        }
        return client
    }

    /// A fresh schema name.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// A migrated store in a fresh schema.
    static func store(
        oneAccountPerEmail: Bool = true, schema: String = freshSchema(), client: PostgresClient? = nil
    ) async throws -> PostgresAccountStore {
        let pool: PostgresClient
        if let client { pool = client } else { pool = try await Self.client() }
        let store = try PostgresAccountStore(client: pool, schema: schema, oneAccountPerEmail: oneAccountPerEmail)
        try await store.migrate()
        return store
    }
}
