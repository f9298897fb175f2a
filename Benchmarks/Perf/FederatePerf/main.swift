// A plain timing harness for the same measurements as the package-benchmark suite.
//
//   cd Benchmarks && swift run -c release FederatePerf [seconds-per-measure]
//
// package-benchmark 1.38 cannot run on Swift 6.3 for Linux without its runtime interposer
// (ordo-one/benchmark#349), whose package is not among the mirrors this project builds
// from; this harness needs nothing but a clock. Each measure runs for the given time
// (default 3 s) after a warm-up and prints operations per second. Pin it to one core with
// `taskset -c 0` for the single-core figures; the 1-vs-2-task pair needs two free cores.

import Crypto
import Federate
import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PerfFixtures
import _CryptoExtras

/// Runs `body` (which performs `batch` operations) repeatedly for `seconds` of this thread's
/// CPU time; returns operations per CPU second (as `openssl speed` counts, so a neighbour
/// taking the core does not lower it). `body` may be async but must not suspend: a
/// verification with its keys at hand runs to its verdict on this thread.
func rate(seconds: Double, batch: Int = 1, _ body: () async -> Void) async -> Double {
    for _ in 0..<max(1, 200 / batch) { await body() }  // warm-up
    let start = threadCPUTime()
    var operations = 0
    while true {
        for _ in 0..<max(1, 64 / batch) {
            await body()
            operations += batch
        }
        let elapsed = threadCPUTime() - start
        let secondsElapsed = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if secondsElapsed >= seconds { return Double(operations) / secondsElapsed }
    }
}

/// ``rate(seconds:batch:_:)`` in wall-clock time, for the batches that run tasks on other threads.
func wallClockRate(seconds: Double, batch: Int, _ body: () async -> Void) async -> Double {
    await body()  // warm-up
    let clock = ContinuousClock()
    let start = clock.now
    var operations = 0
    while true {
        await body()
        operations += batch
        let elapsed = start.duration(to: clock.now)
        let secondsElapsed = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if secondsElapsed >= seconds { return Double(operations) / secondsElapsed }
    }
}

/// The CPU time this thread has used: what the interleaved ratios compare, so that a neighbour
/// taking the core between two batches (a shared, loaded machine) does not count.
func threadCPUTime() -> Duration {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
}

/// The cost of `candidate` over that of `baseline`, measured interleaved: 64 of one, then 64
/// of the other, for `seconds` of CPU in all, so both see the same machine (frequency,
/// neighbours, caches). Time is the thread's CPU time, so neither may suspend (a
/// verification with its keys at hand does not).
func costRatio(seconds: Double, baseline: () async -> Void, candidate: () async -> Void) async -> Double {
    for _ in 0..<200 {
        await baseline()
        await candidate()
    }
    var baselineTime = Duration.zero, candidateTime = Duration.zero
    while baselineTime + candidateTime < .seconds(seconds) {
        var start = threadCPUTime()
        for _ in 0..<64 { await baseline() }
        baselineTime += threadCPUTime() - start
        start = threadCPUTime()
        for _ in 0..<64 { await candidate() }
        candidateTime += threadCPUTime() - start
    }
    return candidateTime / baselineTime
}

func reportRatio(_ name: String, _ value: () async -> Double) async {
    if let only, !name.contains(only) { return }
    let measured = await value()
    reportRatio(name, measured)
}

func reportRatio(_ name: String, _ measured: Double) {
    let line = name.padding(toLength: 58, withPad: " ", startingAt: 0) + String(format: "%8.3f x", measured) + "\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}

/// `FederatePerf allocs [operations] [name]`: allocations per operation instead of rates.
let countsAllocations = CommandLine.arguments.dropFirst().first == "allocs"

/// The measures to run: every one, or those whose names contain the argument after the
/// seconds (`FederatePerf 3 AccessToken`) or the operations, so `perf record` can watch one
/// path alone.
let only = CommandLine.arguments.dropFirst(countsAllocations ? 3 : 2).first

func report(_ name: String, _ measured: Double) {
    let line = name.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: "%12.0f /s", measured) + "\n"
    FileHandle.standardOutput.write(Data(line.utf8))
}

func report(_ name: String, _ value: () async -> Double) async {
    if let only, !name.contains(only) { return }
    let measured = await value()
    report(name, measured)
}

/// Every measure, run off the main actor, as a server's request handlers would call it
/// (a call from top-level code would hop between executors on every `await`).
@Sendable func measureAll(seconds: Double) async {
    let fixture = Fixture.shared
    let accessTokens = AccessTokenFixture.shared
    let dpop = DPoPFixture.shared
    let webAuthn = WebAuthnFixture.shared
    await report("raw RSA-2048 verify (swift-crypto)") { await rate(seconds: seconds) { fixture.verifyRawRSA() } }
    await report("raw P-256 verify (swift-crypto)") { await rate(seconds: seconds) { fixture.verifyRawP256() } }
    await report("IDToken RS256 verify (warm)") { await rate(seconds: seconds) { await verifyAsync(fixture.rsaToken, fixture) } }
    await report("IDToken ES256 verify (warm)") { await rate(seconds: seconds) { await verifyAsync(fixture.ecToken, fixture) } }
    await report("AccessToken RS256 verify (warm)") { await rate(seconds: seconds) { await verifyAccessToken(accessTokens) } }
    await report("DPoP proof verify (ES256, ath, jkt)") { await rate(seconds: seconds) { verifyDPoPProof(dpop) } }
    await report("passkey assertion verify (ES256, from JSON)") { await rate(seconds: seconds) { await verifyPasskeyAssertion(webAuthn) } }
    await report("DPoP-bound request (RS256 token + ES256 proof)") {
        await rate(seconds: seconds) {
            await verifyAsync(dpop.accessToken, fixture)
            verifyDPoPProof(dpop)
        }
    }
    // The method's own noise: the same work on both sides should come out at 1.
    await reportRatio("ratio: ID token / ID token (the method's noise)") {
        await costRatio(seconds: seconds) {
            await verifyAsync(fixture.rsaToken, fixture)
        } candidate: {
            await verifyAsync(fixture.rsaToken, fixture)
        }
    }
    // The pipeline's cost over the bare signature check it wraps (issue 29's goals: 1.10 and
    // 1.08). `verify` is the one async entry point; with the keys at hand it runs on this
    // thread without suspending.
    await reportRatio("ratio: ID token RS256 / raw RSA-2048 verify") {
        await costRatio(seconds: seconds) {
            fixture.verifyRawRSA()
        } candidate: {
            await verifyAsync(fixture.rsaToken, fixture)
        }
    }
    await reportRatio("ratio: ID token ES256 / raw P-256 verify") {
        await costRatio(seconds: seconds) {
            fixture.verifyRawP256()
        } candidate: {
            await verifyAsync(fixture.ecToken, fixture)
        }
    }
    // What any JWS check needs beyond the raw verify, in swift-crypto alone: the signature from
    // its raw form and the SHA-256 of the signing input (the token split once, outside the
    // loop). The pipeline's ratio above over this one is what parsing, JSON and the claim rules
    // cost.
    let rsaSignatureOnly = ParsedSignature(fixture.rsaToken, algorithm: .rs256, fixture)
    await reportRatio("ratio: RS256 signature of a split JWS / raw RSA-2048 verify") {
        await costRatio(seconds: seconds) {
            fixture.verifyRawRSA()
        } candidate: {
            rsaSignatureOnly.verify()
        }
    }
    let ecSignatureOnly = ParsedSignature(fixture.ecToken, algorithm: .es256, fixture)
    await reportRatio("ratio: ES256 signature of a split JWS / raw P-256 verify") {
        await costRatio(seconds: seconds) {
            fixture.verifyRawP256()
        } candidate: {
            ecSignatureOnly.verify()
        }
    }
    // Issue 17's cost goals, as ratios measured interleaved (at most 1 each).
    await reportRatio("ratio: access token / ID token (RS256)") {
        await costRatio(seconds: seconds) {
            await verifyAsync(fixture.rsaToken, fixture)
        } candidate: {
            await verifyAccessToken(accessTokens)
        }
    }
    await reportRatio("ratio: access token / Google-shaped ID token (RS256)") {
        await costRatio(seconds: seconds) {
            await verifyAsync(fixture.googleShapedToken, fixture)
        } candidate: {
            await verifyAccessToken(accessTokens)
        }
    }
    await reportRatio("ratio: DPoP-bound request / (ID token + raw P-256)") {
        await costRatio(seconds: seconds) {
            await verifyAsync(fixture.rsaToken, fixture)
            fixture.verifyRawP256()
        } candidate: {
            await verifyAsync(dpop.accessToken, fixture)
            verifyDPoPProof(dpop)
        }
    }
    // What a proof costs against a whole ES256 JWT verification (the raw P-256 baseline above
    // skips the parsing and hashing every JWT needs).
    await reportRatio("ratio: DPoP proof / ES256 ID token") {
        await costRatio(seconds: seconds) {
            await verifyAsync(fixture.ecToken, fixture)
        } candidate: {
            verifyDPoPProof(dpop)
        }
    }
    // Issue 41's goal (at most 1.10): a passkey assertion, read from its JSON and verified
    // against the stored passkey, over the DER signature and the P-256 verify it wraps.
    await reportRatio("ratio: passkey assertion ES256 / raw P-256 verify (DER)") {
        await costRatio(seconds: seconds) {
            webAuthn.verifyRaw()
        } candidate: {
            await verifyPasskeyAssertion(webAuthn)
        }
    }
    await report("RS256 bearer TokenVerifier.verify (the server)") {
        await wallClockRate(seconds: seconds, batch: 1) { await verifyToken(fixture.rsaToken, fixture) }
    }
    await report("RS256 x256, 1 task") {
        await wallClockRate(seconds: seconds, batch: 256) { await verifyBatch(count: 256, tasks: 1, fixture) }
    }
    await report("RS256 x256, 2 concurrent tasks") {
        await wallClockRate(seconds: seconds, batch: 256) { await verifyBatch(count: 256, tasks: 2, fixture) }
    }
    await measureCache(seconds: seconds)
}

if countsAllocations {
    await Task.detached { await countAllocations(operations: CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 20_000) }.value
} else {
    let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
    await Task.detached { await measureAll(seconds: seconds) }.value
}

/// Heap allocations per operation of each measure: `LD_PRELOAD` the counter built from
/// `scripts/malloc-count.c`, which exports its running count (`federate_allocation_count`).
///
///   cc -O2 -shared -fPIC -o /tmp/malloc-count.so scripts/malloc-count.c
///   LD_PRELOAD=/tmp/malloc-count.so Benchmarks/.build/release/FederatePerf allocs
@Sendable func countAllocations(operations: Int) async {
    typealias Counter = @convention(c) () -> UInt
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "federate_allocation_count") else {
        FileHandle.standardError.write(Data("FederatePerf allocs: LD_PRELOAD the counter from scripts/malloc-count.c\n".utf8))
        exit(2)
    }
    let count = unsafeBitCast(symbol, to: Counter.self)
    func perOperation(_ name: String, _ body: () async -> Void) async {
        if let only, !name.contains(only) { return }
        for _ in 0..<100 { await body() }  // warm: caches filled, lazy globals built
        let before = count()
        for _ in 0..<operations { await body() }
        let each = Double(count() - before) / Double(operations)
        let line = name.padding(toLength: 58, withPad: " ", startingAt: 0) + String(format: "%8.2f allocations", each) + "\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
    let fixture = Fixture.shared
    let rsaSignatureOnly = ParsedSignature(fixture.rsaToken, algorithm: .rs256, fixture)
    let ecSignatureOnly = ParsedSignature(fixture.ecToken, algorithm: .es256, fixture)
    await perOperation("raw RSA-2048 verify (swift-crypto)") { fixture.verifyRawRSA() }
    await perOperation("RS256 signature of a split JWS") { rsaSignatureOnly.verify() }
    await perOperation("ID token RS256, verify") { await verifyAsync(fixture.rsaToken, fixture) }
    await perOperation("ID token RS256, the server's TokenVerifier.verify") { await verifyToken(fixture.rsaToken, fixture) }
    await perOperation("ID token RS256, TokenVerifier.verify, cache hit") { await verifyToken(fixture.rsaToken, fixture, cached: true) }
    await perOperation("ID token RS256, Google-shaped, verify") { await verifyAsync(fixture.googleShapedToken, fixture) }
    await perOperation("raw P-256 verify (swift-crypto)") { fixture.verifyRawP256() }
    await perOperation("ES256 signature of a split JWS") { ecSignatureOnly.verify() }
    await perOperation("ID token ES256, verify") { await verifyAsync(fixture.ecToken, fixture) }
    await perOperation("access token RS256, verify") { await verifyAccessToken(AccessTokenFixture.shared) }
    await perOperation("raw P-256 verify of a DER signature (swift-crypto)") { WebAuthnFixture.shared.verifyRaw() }
    await perOperation("passkey assertion ES256, from JSON") { await verifyPasskeyAssertion(WebAuthnFixture.shared) }
}
