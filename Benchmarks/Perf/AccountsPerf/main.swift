// Sessions and sign-ins on the durable stores, timed plainly (Docs/Performance.md, "Sessions
// and accounts"): the same workload as the package-benchmark suite AccountsBenchmarks, with
// the session figures as ratios to a raw P-256 verify measured interleaved in one process,
// which the suite's separate benchmarks cannot give.
//
//   scripts/accounts-bench.sh                      # with a durable PostgreSQL 15, in one run
//   cd Benchmarks && swift run -c release AccountsPerf [seconds-per-measure] [sqlite|postgres]
//   valgrind --tool=callgrind .build/release/AccountsPerf profile-sessions [count]
//   .build/release/AccountsPerf statements   # one returning and one new sign-in between log markers
//   perf stat .build/release/AccountsPerf profile-signins N [new]   # N sign-ins at concurrency 8, untimed
//
// FEDERATE_BENCH_NIO_EXECUTOR=1 runs Swift tasks on SwiftNIO's event loops, as `federate serve`
// does (NIOSingletons' global-executor takeover).
//
// Prints, for SQLite (and PostgreSQL when FEDERATE_BENCH_POSTGRES_URL is set):
// - a session cookie verified with the revocation check, and without it, each as a ratio to
//   a raw P-256 verify measured interleaved with it (issue 16, item 3: at least 0.9);
// - sign-ins per second, new and returning users, at each concurrency (item 4);
// - `accessToken(for:providerID:)` with a fresh kept token per second (issue 32: at least
//   20,000 on SQLite; the provider is never called).

import AccountsWorkload
import Crypto
import Federate
import Foundation
import NIOCore
import NIOPosix
import PerfFixtures

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// The time of `candidate` over that of `baseline`, 64 of one then 64 of the other, for
/// `duration` in all: both see the same machine.
func costRatio(
    _ duration: Double, baseline: () -> Void, candidate: () async throws -> Void
) async throws -> (ratio: Double, perSecond: Double) {
    let clock = ContinuousClock()
    var baselineTime = Duration.zero, candidateTime = Duration.zero, operations = 0
    for _ in 0..<64 {
        baseline()
        try await candidate()
    }
    while seconds(baselineTime + candidateTime) < duration {
        var start = clock.now
        for _ in 0..<64 { baseline() }
        baselineTime += start.duration(to: clock.now)
        start = clock.now
        for _ in 0..<64 { try await candidate() }
        candidateTime += start.duration(to: clock.now)
        operations += 64
    }
    return (candidateTime / baselineTime, Double(operations) / seconds(candidateTime))
}

/// The CPU time this process has used, user and system, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The CPU time the whole machine has been busy, every core, in seconds (`/proc/stat`: all but
/// idle and I/O wait); 0 where there is no `/proc/stat`.
func machineBusySeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let first = text.split(separator: "\n").first else {
        return 0
    }
    let ticks = first.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard ticks.count >= 8 else { return 0 }
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    return (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Sign-ins per second; the CPU time per sign-in in µs of this process, and of the whole machine
/// (this process, the database's backends, anything else running), which the machine's noise
/// moves less than the rate: batches of 1,000 over `concurrency` tasks for at least `duration`.
func signInRate(
    _ workload: Workload, concurrency: Int, duration: Double, _ body: @escaping @Sendable (Workload) async throws -> Void
) async throws -> (perSecond: Double, cpuMicroseconds: Double, machineMicroseconds: Double) {
    let clock = ContinuousClock()
    try await workload.run(200, concurrency: concurrency) { _ in try await body(workload) }  // warm-up
    let start = clock.now
    let (cpu, machine) = (processCPUSeconds(), machineBusySeconds())
    var count = 0
    while seconds(start.duration(to: clock.now)) < duration {
        try await workload.run(1_000, concurrency: concurrency) { _ in try await body(workload) }
        count += 1_000
    }
    let perSignIn = 1e6 / Double(count)
    return (
        Double(count) / seconds(start.duration(to: clock.now)), (processCPUSeconds() - cpu) * perSignIn,
        (machineBusySeconds() - machine) * perSignIn
    )
}

@Sendable func measureAll(duration: Double, only: String?) async throws {
    let fixture = Fixture.shared
    let rawP256 = {
        let ok = fixture.p256PublicKey.isValidSignature(fixture.p256Signature, for: fixture.p256Digest)
        precondition(ok)
    }
    var stores: [BenchStore] = [.sqlite]
    if BenchStore.postgresURL != nil { stores.append(.postgres) }
    if let only { stores = stores.filter { $0.description.lowercased().hasPrefix(only.lowercased()) } }
    for store in stores {
        let workload = await Workload.shared(store)
        let token = workload.sessionToken
        let checked = try await costRatio(duration, baseline: rawP256) { _ = try await workload.accounts.verifySession(token) }
        line(
            String(
                format: "%@: session verify, ES256 + revocation check   %8.0f /s   raw P-256 / it = %.3f (goal >= 0.9)", store.description,
                checked.perSecond, 1 / checked.ratio))
        let unchecked = try await costRatio(duration, baseline: rawP256) {
            _ = try await workload.accounts.verifySession(token, checkRevoked: false)
        }
        line(
            String(
                format: "%@: session verify, ES256 only                 %8.0f /s   raw P-256 / it = %.3f", store.description,
                unchecked.perSecond, 1 / unchecked.ratio))
        for concurrency in store.concurrencies {
            let returning = try await signInRate(workload, concurrency: concurrency, duration: duration) { try await $0.signInReturning() }
            line(
                String(
                    format: "%@: signIn returning user, concurrency %-3d     %8.0f /s   CPU each: %4.0f µs here, %4.0f µs machine",
                    store.description, concurrency, returning.perSecond, returning.cpuMicroseconds, returning.machineMicroseconds))
            let new = try await signInRate(workload, concurrency: concurrency, duration: duration) { try await $0.signInNew() }
            line(
                String(
                    format: "%@: signIn new user, concurrency %-3d           %8.0f /s   CPU each: %4.0f µs here, %4.0f µs machine",
                    store.description, concurrency, new.perSecond, new.cpuMicroseconds, new.machineMicroseconds))
        }
        for concurrency in [1, 8] {
            let rate = try await accessTokenRate(store: workload.store, concurrency: concurrency, duration: duration)
            line(
                String(
                    format: "%@: accessToken, fresh kept token, concurrency %-3d %8.0f /s (goal >= 20,000 on SQLite)", store.description,
                    concurrency, rate))
        }
    }
}

if ProcessInfo.processInfo.environment["FEDERATE_BENCH_NIO_EXECUTOR"] == "1" {
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    line("Swift tasks run on SwiftNIO's event loops (FEDERATE_BENCH_NIO_EXECUTOR=1)")
}
if CommandLine.arguments.dropFirst().first == "statements" {
    // For scripts/accounts-bench.sh, with the server logging every statement: one returning and
    // one new sign-in on the PostgreSQL workload, each between markers, and what varies in them.
    try await Task.detached {
        let workload = await Workload.shared(.postgres)
        try await workload.mark("returning")
        let returning = try await workload.signInReturning()
        try await workload.mark("new")
        let new = try await workload.signInNew()
        try await workload.mark("end")
        line("returning subject=\(returning.credential.subject)")
        line("new subject=\(new.credential.subject) uid=\(new.user.uid) email=\(new.user.email ?? "")")
        line("first returning subject=\(Workload.firstReturningSubject) count=1000")
    }.value
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "profile-signins" {
    // For `perf stat` / `perf record`: N returning sign-ins (or new ones, with `new`) at
    // concurrency 8 on the PostgreSQL workload, untimed. A run with N = 0 measures the set-up,
    // to subtract.
    let count = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 20_000
    let new = CommandLine.arguments.dropFirst(3).first == "new"
    try await Task.detached {
        let workload = await Workload.shared(.postgres)
        try await workload.run(count, concurrency: 8) { _ in
            if new { try await workload.signInNew() } else { try await workload.signInReturning() }
        }
    }.value
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "profile-sessions" {
    // For `valgrind --tool=callgrind`: N session verifications (with the revocation check) and
    // N raw P-256 verifications on the SQLite workload, untimed, so the two costs can be compared
    // by instruction counts (Docs/Performance.md, "Sessions and accounts").
    let count = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 2_000
    try await Task.detached {
        let workload = await Workload.shared(.sqlite)
        let fixture = Fixture.shared
        for _ in 0..<count {
            _ = try await workload.accounts.verifySession(workload.sessionToken)
            precondition(fixture.p256PublicKey.isValidSignature(fixture.p256Signature, for: fixture.p256Digest))
        }
    }.value
    exit(0)
}
let duration = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
let only = CommandLine.arguments.dropFirst(2).first  // one store only: sqlite or postgres
try await Task.detached { try await measureAll(duration: duration, only: only) }.value
