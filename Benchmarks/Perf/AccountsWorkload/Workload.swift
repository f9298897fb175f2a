// The sign-in workload both account measurements run: a service on a durable store (SQLite in
// WAL with synchronous=NORMAL, or the PostgreSQL at FEDERATE_BENCH_POSTGRES_URL) with 1,000
// identities signed in once, and one session token. AccountsPerf (plain timing) and the
// package-benchmark suite AccountsBenchmarks share it.

public import Federate
import FederatePostgres
import FederateSQLite
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The stores measured.
public enum BenchStore: String, Sendable, CustomStringConvertible {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    public var description: String { rawValue }

    /// FEDERATE_BENCH_POSTGRES_URL, when set.
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["FEDERATE_BENCH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// SQLite has one connection, but concurrent sign-ins overlap their session signing and
    /// their moves to the store's thread with its statements. PostgreSQL commits in groups.
    public var concurrencies: [Int] {
        switch self {
        case .sqlite: [1, 8]
        case .postgres: [1, 8, 64]
        }
    }
}

/// A service on one store, with 1,000 identities signed in once, and one session token.
public final class Workload: Sendable {
    public let accounts: AccountService
    /// The store the service runs on.
    public let store: any AccountStore
    public let sessionToken: String
    /// The PostgreSQL pool, for the markers of `statements` mode; `nil` on SQLite.
    let postgres: PostgresClient?
    private let counter = Atomic<Int>(0)
    static let returningIdentities = 1_000
    /// Subjects are decimal numbers, which `pgbench` variables can be (scripts/accounts-bench.sh
    /// runs Federate's own statements with them): the returning identities' from this one on,
    /// new identities' from `firstNewSubject`. Each run has a fresh database, so they never clash.
    public static let firstReturningSubject = 1_000_000
    static let firstNewSubject = 2_000_000_000

    private static let all = Mutex<[String: Task<Workload, Never>]>([:])

    /// The workload of `store`, made once per process.
    public static func shared(_ store: BenchStore) async -> Workload {
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
        var pool: PostgresClient?
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
            let client = PostgresClient(
                configuration: configuration, backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
            Task.detached { await client.run() }
            let schema = "bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let postgres = try PostgresAccountStore(client: client, schema: String(schema))
            try await postgres.migrate()
            store = postgres
            pool = client
        }
        self.store = store
        postgres = pool
        accounts = AccountService(store: store)
        for index in 0..<Self.returningIdentities {
            let subject = String(Self.firstReturningSubject + index)
            _ = try await accounts.signIn(with: Self.credential(subject: subject, email: "\(subject)@example.com"))
        }
        guard
            let token = try await accounts.signIn(with: Self.credential(subject: String(Self.firstReturningSubject), email: nil))
                .sessionToken
        else {
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

    /// Signs in one of the 1,000 existing identities (lookup, update, a session).
    @discardableResult public func signInReturning() async throws -> AuthResult {
        let index = counter.wrappingAdd(1, ordering: .relaxed).oldValue % Self.returningIdentities
        return try await accounts.signIn(with: Self.credential(subject: String(Self.firstReturningSubject + index), email: nil))
    }

    /// Signs in an identity never seen (lookups, the insert, a session).
    @discardableResult public func signInNew() async throws -> AuthResult {
        let subject = String(Self.firstNewSubject + counter.wrappingAdd(1, ordering: .relaxed).oldValue)
        return try await accounts.signIn(with: Self.credential(subject: subject, email: "\(subject)@example.com"))
    }

    /// Sends `SELECT 'federate-bench: <name>'` (PostgreSQL only), a marker between the
    /// statements of two operations in the server's statement log.
    public func mark(_ name: String) async throws {
        guard let postgres else { return }
        _ = try await postgres.query(PostgresQuery(unsafeSQL: "SELECT 'federate-bench: \(name)'")).collect()
    }

    /// Runs `body` `count` times over `concurrency` tasks.
    public func run(_ count: Int, concurrency: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
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
