import Federate
import FederateDevProvider
import FederateHummingbird
import FederateOIDC
import FederatePostgres
import FederateSQLite
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing
@testable import FederateServer

/// `/healthz` and `/readyz` against real parts: an SQLite store that is closed under the
/// server, a PostgreSQL server stopped under its pool, and a dev provider whose discovery
/// document and keys are not cached until the warmer fetches them.
@Suite("Health and readiness", .serialized)
struct HealthRoutesTests {
    /// What a probe sees: the status and the JSON body.
    struct Probe: Sendable {
        let status: Int
        let body: [String: JSONValue]

        var notReady: [String] { body["not_ready"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    }

    /// Runs `body` with a client of an app serving only the health routes for `readiness`.
    static func withApp(
        _ readiness: Readiness, _ body: @escaping @Sendable (_ get: @Sendable (String) async throws -> Probe) async throws -> Void
    ) async throws {
        let router = Router(context: FederateContext.self)
        HealthRoutes<FederateContext>(readiness: readiness).register(on: router)
        try await Application(router: router).test(.router) { client in
            try await body { path in
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.headers[.cacheControl] == "no-store")
                    #expect(response.headers[.contentType] == "application/json")
                    return Probe(status: response.status.code, body: try JSONParser().parseObject(Array(buffer: response.body)))
                }
            }
        }
    }

    static func temporarySQLitePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("federate-health-\(UUID().uuidString).sqlite").path
    }

    @Test func readyzFailsWhileTheSQLiteStoreIsClosedAndHealthzStays200() async throws {
        let path = Self.temporarySQLitePath()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await SQLiteAccountStore.open(path: path)
        try await Self.withApp(Readiness(store: store, providers: try ProviderRegistry([:]))) { get in
            let ready = try await get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.body == ["status": "ready"])

            try await store.close()
            let down = try await get("/readyz")
            #expect(down.status == 503)
            #expect(down.body["status"] == "not_ready")
            #expect(down.notReady == ["store"])
            #expect(Set(down.body.keys) == ["status", "not_ready"], "names only: no error text")

            let alive = try await get("/healthz")
            #expect(alive.status == 200)
            #expect(alive.body == ["status": "ok"])
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func readyzFailsWhilePostgreSQLIsStopped() async throws {
        let cluster = try await DedicatedPostgresCluster.start()
        var configuration = PostgresClient.Configuration(
            host: cluster.endpoint.host, port: cluster.endpoint.port, username: cluster.endpoint.username, password: nil,
            database: cluster.endpoint.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        let client = PostgresClient(
            configuration: configuration, backgroundLogger: Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        let pool = Task { await client.run() }
        defer { pool.cancel() }
        let store = try PostgresAccountStore(client: client)
        try await store.migrate()
        let readiness = Readiness(store: store, providers: try ProviderRegistry([:]), storeTimeout: .seconds(2))
        try await Self.withApp(readiness) { get in
            let probe1 = try await get("/readyz")
            #expect(probe1.status == 200)

            #expect(await cluster.stop(), "pg_ctl could not stop the cluster")
            let started = ContinuousClock.now
            let down = try await get("/readyz")
            #expect(down.status == 503)
            #expect(down.notReady == ["store"])
            // A pool waiting for a connection that never comes does not hold the probe.
            #expect(ContinuousClock.now - started < .seconds(10))
            let body = String(decoding: JSONSerializer.bytes(.object(down.body)), as: UTF8.self)
            #expect(!body.contains(String(cluster.endpoint.port)) && !body.contains("postgres"), "\(body)")

            let probe2 = try await get("/healthz")
            #expect(probe2.status == 200)
        }
    }

    /// No `ProviderWarmer` runs (as in the documented app): the first probe finds the provider
    /// cold, answers 503 and starts warming it; a later probe finds it ready.
    @Test func readyzFailsUntilTheProvidersDiscoveryAndKeysAreCached() async throws {
        let dev = try await DevProvider.start(configuration: .standard)
        defer { Task { try? await dev.stop() } }
        let provider = try OIDCProvider(
            id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        // Only the discovery document cached: not warm (the keys are missing).
        _ = try await provider.cache.discovery.metadata(for: dev.issuer)
        #expect(!provider.isWarm)
        let readiness = Readiness(store: InMemoryAccountStore(), providers: try ProviderRegistry(["dev": provider]))
        try await Self.withApp(readiness) { get in
            let cold = try await get("/readyz")
            #expect(cold.status == 503)
            #expect(cold.notReady == ["provider:dev"])
            let probe3 = try await get("/healthz")
            #expect(probe3.status == 200)

            var warm = try await get("/readyz")
            for _ in 0..<100 where warm.status != 200 {
                try await Task.sleep(for: .milliseconds(100))
                warm = try await get("/readyz")
            }
            #expect(provider.isWarm)
            #expect(warm.status == 200)
            #expect(warm.body == ["status": "ready"])
        }
    }

    @Test func theWarmerReportsAProviderItCannotReach() async throws {
        let dev = try await DevProvider.start(configuration: .standard)
        let issuer = dev.issuer
        try await dev.stop()
        let provider = try OIDCProvider(
            id: "oidc.gone", issuer: issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: PatientTransport.shared))
        #expect(await ProviderWarmer(providers: try ProviderRegistry(["gone": provider])).warmAll() == ["gone"])
        #expect(!provider.isWarm)
        try await Self.withApp(Readiness(store: InMemoryAccountStore(), providers: try ProviderRegistry(["gone": provider]))) { get in
            let probe5 = try await get("/readyz")
            #expect(probe5.notReady == ["provider:gone"])
        }
    }
}
