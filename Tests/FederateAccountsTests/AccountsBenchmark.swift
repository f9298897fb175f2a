import Federate
import Foundation
import Testing
@testable import FederateAccounts

/// `signIn` throughput on SQLite and PostgreSQL (Docs/Performance.md, "Accounts").
/// Off by default; run with `FEDERATE_BENCH=1 swift test --filter AccountsBenchmark`.
@Suite("AccountsBenchmark", .serialized, .enabled(if: ProcessInfo.processInfo.environment["FEDERATE_BENCH"] != nil))
struct AccountsBenchmark {
    static let count = Int(ProcessInfo.processInfo.environment["FEDERATE_BENCH_COUNT"] ?? "") ?? 2000

    @Test(arguments: [StoreKind.memory, StoreKind.sqlite, StoreKind.postgres])
    func signInPerSecond(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let accounts = AccountService(store: store)
            _ = try await accounts.signIn(with: TestCredential.make("google.com", "warm-up"))
            for concurrency in [1, 8] {
                let prefix = "\(kind)-\(concurrency)-"
                let newUsers = try await Self.measure(concurrency: concurrency) { index in
                    _ = try await accounts.signIn(
                        with: TestCredential.make("google.com", prefix + String(index), email: "\(prefix)\(index)@example.com"))
                }
                let returning = try await Self.measure(concurrency: concurrency) { index in
                    _ = try await accounts.signIn(with: TestCredential.make("google.com", prefix + String(index % 100)))
                }
                print(
                    "ACCOUNTS-BENCH \(kind) concurrency=\(concurrency) n=\(Self.count): new user \(Int(newUsers)) signIn/s, returning user \(Int(returning)) signIn/s"
                )
            }
        }
    }

    /// The session token alone (ES256 signing, and verification without the store).
    @Test func sessionTokensPerSecond() async throws {
        let accounts = AccountService(store: InMemoryAccountStore())
        let token = try await accounts.issueSession(uid: "uid", authTime: Date()).token
        let issue = try await Self.measure(concurrency: 1) { _ in _ = try await accounts.issueSession(uid: "uid", authTime: Date()) }
        let verify = try await Self.measure(concurrency: 1) { _ in _ = try await accounts.verifySession(token, checkRevoked: false) }
        print("ACCOUNTS-BENCH session tokens n=\(Self.count): issue \(Int(issue))/s, verify (checkRevoked: false) \(Int(verify))/s")
    }

    /// Runs `body(0..<count)` with `concurrency` tasks; returns operations per second.
    static func measure(concurrency: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: count, by: concurrency) { try await body(index) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(count) / seconds
    }
}
