// Federate's verification hot path, measured with package-benchmark.
//
//   cd Benchmarks && swift package benchmark --target FederateBenchmarks
//
// Every "verify" benchmark is one full ID-token verification per iteration (parse, key
// lookup, signature, claims) against a key set that is already parsed: the warm-cache case.
// The "raw" benchmarks are the bare swift-crypto primitive on a precomputed digest and
// signature: the in-process ceiling that the full verification is compared with.
// The "batch" pair runs the same 256 RS256 verifications on one thread, then split across two
// threads: with no lock or actor on the hot path the second takes about half the wall-clock
// time on two free cores. They use threads, not tasks, because package-benchmark's runner
// waits for an async benchmark on one of Swift concurrency's cooperative threads, which leaves
// a 2-core machine a single one (FederatePerf measures the task version). See
// Docs/Performance.md.

import Benchmark
import Crypto
import Federate
import Foundation
import PerfFixtures
import _CryptoExtras

let benchmarks: @Sendable () -> Void = {
    // One operation per iteration. ~3 s per benchmark keeps the whole suite near a minute.
    let perOperation = Benchmark.Configuration(
        metrics: [.throughput, .wallClock],
        warmupIterations: 200,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 200_000
    )
    // 256 verifications per iteration, so task start-up is noise.
    let perBatch = Benchmark.Configuration(
        metrics: [.throughput, .wallClock],
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(4),
        maxIterations: 2_000
    )
    let batchSize = 256

    Benchmark("IDToken RS256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { verifySync(fixture.rsaToken, fixture) }
    }
    Benchmark("IDToken RS256 verify, Google-shaped (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { verifySync(fixture.googleShapedToken, fixture) }
    }
    // Issue 17: one RFC 9068 access-token verification costs no more than one ID-token
    // verification (compare with the two "IDToken RS256 verify" above; FederatePerf prints
    // both as ratios measured interleaved).
    Benchmark("AccessToken RS256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = AccessTokenFixture.shared
        for _ in benchmark.scaledIterations { verifyAccessTokenSync(fixture) }
    }
    Benchmark("IDToken ES256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { verifySync(fixture.ecToken, fixture) }
    }
    Benchmark("IDToken RS256 verify (warm, async provider)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.rsaToken, fixture) }
    }
    Benchmark("IDToken ES256 verify (warm, async provider)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.ecToken, fixture) }
    }
    Benchmark("IDToken RS256 bearer verify (the server's verifyCaller)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyCaller(fixture.rsaToken, fixture) }
    }
    Benchmark("raw RSA-2048 verify (swift-crypto)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            fixture.verifyRawRSA()
        }
    }
    Benchmark("raw P-256 verify (swift-crypto)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            fixture.verifyRawP256()
        }
    }
    // The floor of any RS256 JWS check: the token parsed once, then the signature bytes into
    // swift-crypto, SHA-256 of the signing input and the verify (FederatePerf prints it as a
    // ratio to the raw verify).
    Benchmark("RS256 signature of a parsed JWS", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        let signatureOnly = ParsedSignature(fixture.rsaToken, keyID: "bench-rsa", algorithm: .rs256, fixture)
        for _ in benchmark.scaledIterations { signatureOnly.verify() }
    }
    Benchmark("CompactJWS parse", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            do {
                blackHole(try CompactJWS(parsing: fixture.rsaToken))
            } catch {
                fatalError("parse failed: \(error)")
            }
        }
    }
    Benchmark("IDToken RS256 verify x\(batchSize) (1 thread)", configuration: perBatch) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { verifyOnThreads(count: batchSize, threads: 1, fixture) }
    }
    Benchmark("IDToken RS256 verify x\(batchSize) (2 threads)", configuration: perBatch) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { verifyOnThreads(count: batchSize, threads: 2, fixture) }
    }
    dpopBenchmarks(perOperation)
}

/// Verifies `count` RS256 tokens split across `threads` threads of their own and waits for all.
func verifyOnThreads(count: Int, threads: Int, _ fixture: Fixture) {
    let done = DispatchGroup()
    for _ in 0..<threads {
        done.enter()
        Thread {
            for _ in 0..<(count / threads) { verifySync(fixture.rsaToken, fixture) }
            done.leave()
        }.start()
    }
    done.wait()
}
