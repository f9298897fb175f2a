// Sign-ins and session verification on the SQL stores, measured with package-benchmark.
//
//   scripts/accounts-bench.sh      # starts a durable PostgreSQL 15, runs this suite, prints the baselines
//   cd Benchmarks && FEDERATE_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/postgres \
//       swift package --allow-writing-to-package-directory benchmark --target AccountsBenchmarks
//
// SQLite: a file in WAL mode with `synchronous=NORMAL` (what `SQLiteAccountStore.open` sets).
// PostgreSQL: the server at FEDERATE_BENCH_POSTGRES_URL (its `fsync` and `synchronous_commit`
// are the server's: the script starts one with both on); without it the PostgreSQL
// benchmarks are left out. Sign-in benchmarks run 1,000 sign-ins per iteration (throughput
// is reported in thousands: "2 K" is 2,000 sign-ins/s) spread over `concurrency` tasks on
// one `AccountService`. "new user" signs in an identity never seen (identity lookup, email
// lookup, the insert, an ES256 session); "returning" one of 1,000 existing identities
// (lookup, update, a session). The session benchmarks verify one session cookie per
// iteration with the revocation check (`verifySession(_:)`), next to the raw P-256 verify
// of the same swift-crypto the token is checked with. See Docs/Performance.md.

import Benchmark
import Crypto
import Federate
import FederatePostgres
import FederateSQLite
import Foundation
import Logging
import PerfFixtures
import PostgresNIO
import Synchronization

let benchmarks: @Sendable () -> Void = {
    let perOperation = Benchmark.Configuration(
        metrics: [.throughput, .wallClock], warmupIterations: 200, scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 200_000)
    let perThousand = Benchmark.Configuration(
        metrics: [.throughput, .wallClock], warmupIterations: 1, scalingFactor: .kilo, maxDuration: .seconds(4), maxIterations: 40)

    Benchmark("raw P-256 verify (swift-crypto)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            let ok = fixture.p256PublicKey.isValidSignature(fixture.p256Signature, for: fixture.p256Digest)
            precondition(ok)
            blackHole(ok)
        }
    }

    var stores: [BenchStore] = [.sqlite]
    if BenchStore.postgresURL != nil { stores.append(.postgres) }
    for store in stores {
        Benchmark("session verify, ES256 + revocation check (\(store))", configuration: perOperation) { benchmark in
            let workload = await Workload.shared(store)
            let token = workload.sessionToken
            for _ in benchmark.scaledIterations { blackHole(try await workload.accounts.verifySession(token)) }
        }
        Benchmark("session verify, ES256 only (\(store))", configuration: perOperation) { benchmark in
            let workload = await Workload.shared(store)
            let token = workload.sessionToken
            for _ in benchmark.scaledIterations { blackHole(try await workload.accounts.verifySession(token, checkRevoked: false)) }
        }
        for concurrency in store.concurrencies {
            Benchmark("signIn returning user (\(store), concurrency \(concurrency))", configuration: perThousand) { benchmark in
                let workload = await Workload.shared(store)
                try await workload.run(benchmark.scaledIterations.count, concurrency: concurrency) { _ in
                    try await workload.signInReturning()
                }
            }
            Benchmark("signIn new user (\(store), concurrency \(concurrency))", configuration: perThousand) { benchmark in
                let workload = await Workload.shared(store)
                try await workload.run(benchmark.scaledIterations.count, concurrency: concurrency) { _ in
                    try await workload.signInNew()
                }
            }
        }
    }
}

/// The stores measured.
enum BenchStore: String, Sendable, CustomStringConvertible {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    var description: String { rawValue }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["FEDERATE_BENCH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite has one connection: concurrency only queues. PostgreSQL commits in groups.
    var concurrencies: [Int] {
        switch self {
        case .sqlite: [1, 8]
        case .postgres: [1, 8, 64]
        }
    }
}

/// A service on one store, with 1,000 identities signed in once, and one session token.
final class Workload: Sendable {
    let accounts: AccountService
    let sessionToken: String
    let prefix = "bench-\(UUID().uuidString.prefix(8))-"
    private let counter = Atomic<Int>(0)
    static let returningIdentities = 1_000

    private static let all = Mutex<[String: Task<Workload, Never>]>([:])

    /// The workload of `store`, made once per process.
    static func shared(_ store: BenchStore) async -> Workload {
        let task = all.withLock { all in
            if let task = all[store.rawValue] { return task }
            let task = Task {
                do {
                    return try await Workload(store: store)
                } catch {
                    fatalError("accounts benchmark set-up (\(store)): \(error)")
                }
            }
            all[store.rawValue] = task
            return task
        }
        return await task.value
    }

    private init(store kind: BenchStore) async throws {
        let store: any AccountStore
        switch kind {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try await SQLiteAccountStore.open(path: directory.appendingPathComponent("accounts.sqlite").path)
        case .postgres:
            guard let url = BenchStore.postgresURL, let components = URLComponents(string: url), let host = components.host else {
                throw FederateError(.invalidConfiguration, "FEDERATE_BENCH_POSTGRES_URL is not a postgres:// URL")
            }
            let database = String(components.path.drop(while: { $0 == "/" }))
            var configuration = PostgresClient.Configuration(
                host: host, port: components.port ?? 5432, username: components.user ?? "postgres", password: components.password,
                database: database.isEmpty ? "postgres" : database, tls: .disable)
            configuration.options.maximumConnections = Int(ProcessInfo.processInfo.environment["FEDERATE_BENCH_POSTGRES_POOL"] ?? "") ?? 64
            let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
            Task.detached { await client.run() }
            let schema = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let postgres = try PostgresAccountStore(client: client, schema: String(schema))
            try await postgres.migrate()
            store = postgres
        }
        accounts = AccountService(store: store)
        for index in 0..<Self.returningIdentities {
            _ = try await accounts.signIn(with: Self.credential(subject: prefix + "r\(index)", email: "\(prefix)r\(index)@example.com"))
        }
        guard let token = try await accounts.signIn(with: Self.credential(subject: prefix + "r0", email: nil)).sessionToken else {
            throw FederateError(.accountStoreFailed, "no session token")
        }
        sessionToken = token
    }

    static func credential(subject: String, email: String?) -> Credential {
        Credential(
            providerID: "oidc.bench", subject: subject, email: email, emailVerified: email != nil,
            tokens: ProviderTokens(accessToken: "at-" + subject, refreshToken: nil),
            profile: ProviderProfile(displayName: "Bench User", email: email, photoURL: nil, username: nil))
    }

    func signInReturning() async throws {
        let index = counter.wrappingAdd(1, ordering: .relaxed).oldValue % Self.returningIdentities
        _ = try await accounts.signIn(with: Self.credential(subject: prefix + "r\(index)", email: nil))
    }

    func signInNew() async throws {
        let index = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        _ = try await accounts.signIn(with: Self.credential(subject: prefix + "n\(index)", email: "\(prefix)n\(index)@example.com"))
    }

    /// Runs `body` `count` times over `concurrency` tasks.
    func run(_ count: Int, concurrency: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: count, by: concurrency) { try await body(index) }
                }
            }
            try await group.waitForAll()
        }
    }
}
