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

import AccountsWorkload
import Benchmark
import Crypto
import Federate
import PerfFixtures

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
