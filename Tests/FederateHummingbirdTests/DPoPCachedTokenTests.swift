import Federate
import FederateTestSupport
@testable import FederateHummingbird
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FederateTokens

/// A DPoP-bound token answered from the verified-token cache still needs a valid proof on
/// every request: only the token's verdict is remembered, never its presentation.
@Suite("DPoP with the verified-token cache")
struct DPoPCachedTokenTests {
    @Test func aCachedBoundTokenNeedsAFreshProofEveryTime() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
        let issuer = DPoPMiddlewareTests.Issuer(clock: clock)
        let verifier = issuer.verifier
        let cache = try #require(verifier.pipeline.cache)
        let validator = DPoPProofValidator(verifier: DPoPProofVerifier(clock: clock.clock), replayStore: InMemoryReplayStore())
        let dpop = try DPoPPresentation(validator: validator, origin: DPoPMiddlewareTests.origin)
        let router = Router(context: FederateContext.self)
        router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: verifier, presentations: [dpop]))
            .get("orders") { _, context in context.federate.caller?.subject ?? "nobody" }
        let key = DPoPKey.generateES256(), thief = DPoPKey.generateES256()
        let token = try issuer.accessToken(boundTo: key.thumbprint)
        let url = DPoPMiddlewareTests.origin + "/api/orders"
        try await Application(router: router).test(.router) { client in
            func get(_ proof: String?) async throws -> TestResponse {
                try await client.execute(uri: "/api/orders", method: .get, headers: DPoPMiddlewareTests.headers(token: token, proof: proof))
            }
            #expect(try await get(try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)).status == .ok)
            // The token is now a cache hit; each of these requests is refused for its proof alone.
            #expect(try await get(nil).status == .unauthorized)
            let stolen = try await get(try thief.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token))
            #expect(stolen.status == .unauthorized && String(buffer: stolen.body).contains("\"dpop_binding_mismatch\""))
            #expect(try await get(try key.proof(method: "POST", uri: url, issuedAt: clock.now, accessToken: token)).status == .unauthorized)
            let proof = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)
            #expect(try await get(proof).status == .ok)
            let replayed = try await get(proof)
            #expect(replayed.status == .unauthorized && String(buffer: replayed.body).contains("\"dpop_proof_replayed\""))
        }
        #expect(cache.statistics.hits == 5 && cache.statistics.misses == 1)
    }
}
