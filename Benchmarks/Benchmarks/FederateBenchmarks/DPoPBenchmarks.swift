// DPoP (RFC 9449): what a DPoP-bound request costs a resource server. The bound request is
// one access-token verification (here the RS256 ID token, verified the same way) plus the
// proof's: compare it with "IDToken RS256 verify (warm)" plus "raw P-256 verify".

import Benchmark
import Federate
import PerfFixtures

func dpopBenchmarks(_ configuration: Benchmark.Configuration) {
    Benchmark("DPoP proof verify (ES256, ath, jkt)", configuration: configuration) { benchmark in
        let fixture = DPoPFixture.shared
        for _ in benchmark.scaledIterations { verifyDPoPProof(fixture) }
    }
    Benchmark("DPoP-bound request (RS256 token + ES256 proof)", configuration: configuration) { benchmark in
        let fixture = DPoPFixture.shared, tokens = Fixture.shared
        for _ in benchmark.scaledIterations {
            await verifyAsync(fixture.accessToken, tokens)
            verifyDPoPProof(fixture)
        }
    }
}
