// Federate's verification hot path, measured with package-benchmark.
//
//   cd Benchmarks && swift package benchmark --target FederateBenchmarks
//
// Every "verify" benchmark is one full ID-token verification per iteration (parse, key
// lookup, signature, claims) against a key set that is already parsed: the warm-cache case.
// The "raw" benchmarks are the bare swift-crypto primitive on a precomputed digest and
// signature: the in-process ceiling that the full verification is compared with.
// The one-versus-two-task batch pair is FederatePerf's: package-benchmark's runner waits for an
// async benchmark on one of Swift concurrency's cooperative threads, which leaves a 2-core
// machine a single one. See Docs/Performance.md.

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

    Benchmark("IDToken RS256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.rsaToken, fixture) }
    }
    Benchmark("IDToken RS256 verify, Google-shaped (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.googleShapedToken, fixture) }
    }
    // Issue 17: one RFC 9068 access-token verification costs no more than one ID-token
    // verification (compare with the two "IDToken RS256 verify" above; FederatePerf prints
    // both as ratios measured interleaved).
    Benchmark("AccessToken RS256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = AccessTokenFixture.shared
        for _ in benchmark.scaledIterations { await verifyAccessToken(fixture) }
    }
    Benchmark("IDToken ES256 verify (warm)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.ecToken, fixture) }
    }
    Benchmark("IDToken RS256 verify (warm, async provider)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.rsaToken, fixture) }
    }
    Benchmark("IDToken ES256 verify (warm, async provider)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyAsync(fixture.ecToken, fixture) }
    }
    Benchmark("IDToken RS256 bearer verify (the server's TokenVerifier.verify)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyToken(fixture.rsaToken, fixture) }
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
    // The floor of any RS256 JWS check: the token split once, then, in swift-crypto alone, the
    // signature bytes into a signature, SHA-256 of the signing input and the verify (FederatePerf prints it as a
    // ratio to the raw verify).
    Benchmark("RS256 signature of a parsed JWS", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        let signatureOnly = ParsedSignature(fixture.rsaToken, algorithm: .rs256, fixture)
        for _ in benchmark.scaledIterations { signatureOnly.verify() }
    }
    dpopBenchmarks(perOperation)
}
