import Federate
import FederateTestSupport
import Foundation
import MetricsTestKit
import Testing
@testable import FederateRelyingParty

/// What a ``RemoteKeySet`` counts (Docs/Operations.md): fetches by outcome, forced refetches
/// the rate limit refused, and stale keys served while the endpoint fails, into an injected
/// `TestMetrics`.
@Suite("RemoteKeySet metrics")
struct KeySetMetricsTests {
    @Test func refusedRefetchesAndStaleServesAreCounted() async throws {
        try await TestIssuer.with { issuer in
            let metrics = TestMetrics()
            let observability = Observability(metrics: metrics)
            let policy = CachePolicy(
                minimumLifetime: .zero, defaultLifetime: .seconds(1), maximumStaleness: .seconds(4), retryDelayAfterFailure: .seconds(30))
            let time = TestClock()
            let keys = try RemoteKeySet(
                url: issuer.jwksURL, httpClient: AsyncHTTPClientTransport.shared, cachePolicy: policy, clock: time.clock,
                observability: observability)
            let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys, clock: time.clock, observability: observability)
            let url = ("url", issuer.jwksURL)
            func count(_ label: String, _ dimensions: [(String, String)]) -> Int64 {
                metrics.counterTotal(label: label, dimensions: dimensions)
            }

            let token = try issuer.idToken()
            _ = try await verifier.verify(token)
            #expect(count("federate_key_set_fetches_total", [url, ("outcome", "ok")]) == 1)
            // Warm keys: verified from the cache (no fetch), each verification counted once.
            _ = try await verifier.verify(token)
            _ = try await verifier.verify(token)
            #expect(count("federate_verifications_total", [("kind", "id_token"), ("outcome", "ok")]) == 3)
            #expect(count("federate_key_set_fetches_total", [url, ("outcome", "ok")]) == 1)
            // A token the warm keys refuse is counted with its code.
            let expired = try issuer.idToken(claims: ["exp": .integer(Int64(time.clock.now.timeIntervalSince1970) - 3600)])
            let refused = await #expect(throws: FederateError.self) { try await verifier.verify(expired) }
            #expect(refused?.code == .tokenExpired)
            #expect(count("federate_verifications_total", [("kind", "id_token"), ("outcome", "token_expired")]) == 1)

            // Unknown kids: the first forces a refetch, the next two are refused by the rate limit.
            let unknown = try issuer.idToken(header: ["kid": "unknown"])
            for _ in 0..<3 {
                await #expect(throws: FederateError.self) { try await verifier.verify(unknown) }
            }
            #expect(count("federate_key_set_fetches_total", [url, ("outcome", "ok")]) == 2)
            #expect(count("federate_key_set_refetches_refused_total", [url]) == 2)
            #expect(count("federate_verifications_total", [("kind", "id_token"), ("outcome", "unknown_key")]) == 3)

            // The endpoint fails after expiry: the stale copy serves, twice.
            issuer.jwksFails = true
            time.advance(by: .milliseconds(1500))
            _ = try await verifier.verify(token)
            _ = try await verifier.verify(token)
            #expect(count("federate_key_set_fetches_total", [url, ("outcome", "error")]) == 1)
            #expect(count("federate_key_set_stale_serves_total", [url]) == 2)
            #expect(count("federate_verifications_total", [("kind", "id_token"), ("outcome", "ok")]) == 5)
        }
    }
}
