import Federate
import FederatePostgres
import FederateSQLite
import FederateTestSupport
import Foundation
import Testing

extension AccountsTests {
    /// The DPoP replay store (RFC 9449 §11.1) on every store: a proof counts once across
    /// validator instances sharing the store, and entries expire.
    @Suite("Accounts: DPoP replay store (every store)")
    struct DPoPReplayStoreConformanceTests {
        @Test(arguments: StoreKind.allCases)
        func proofsCountOnceAcrossInstancesAndExpire(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let replay: any ReplayStore = store
                let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000))
                // Two validators, as two server instances, on the one store.
                let first = DPoPProofValidator(verifier: DPoPProofVerifier(clock: clock.clock), replayStore: replay)
                let second = DPoPProofValidator(verifier: DPoPProofVerifier(clock: clock.clock), replayStore: replay)
                let key = DPoPKey.generateES256()
                let uri = "https://api.example.com/orders"
                let proof = try key.proof(method: "GET", uri: uri, issuedAt: clock.now)
                _ = try await first.validate(proof: proof, method: "GET", uri: uri)
                let replayed = await #expect(throws: FederateError.self) {
                    try await second.validate(proof: proof, method: "GET", uri: uri)
                }
                #expect(replayed?.code == .dpopProofReplayed)
                // Another proof of the same key is fresh.
                _ = try await second.validate(proof: try key.proof(method: "GET", uri: uri, issuedAt: clock.now), method: "GET", uri: uri)

                // The store itself: once until expiry, then again; keys are independent.
                let now = clock.now
                #expect(try await replay.consume("k1", expiresAt: now.addingTimeInterval(90), now: now))
                #expect(try await !replay.consume("k1", expiresAt: now.addingTimeInterval(90), now: now.addingTimeInterval(89)))
                #expect(try await replay.consume("k2", expiresAt: now.addingTimeInterval(90), now: now))
                #expect(try await replay.consume("k1", expiresAt: now.addingTimeInterval(200), now: now.addingTimeInterval(91)))
                // Proof keys never collide with provider event IDs of the same text.
                #expect(try await store.consumeEventID("k3", expiresAt: now.addingTimeInterval(90), now: now))
                #expect(try await replay.consume("k3", expiresAt: now.addingTimeInterval(90), now: now))
            }
        }

        @Test func inMemoryStoreIsBounded() async throws {
            let store = InMemoryReplayStore(capacity: 2)
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            #expect(try await store.consume("a", expiresAt: now.addingTimeInterval(10), now: now))
            #expect(try await store.consume("b", expiresAt: now.addingTimeInterval(10), now: now))
            let full = await #expect(throws: FederateError.self) {
                try await store.consume("c", expiresAt: now.addingTimeInterval(10), now: now)
            }
            #expect(full?.code == .dpopProofReplayed)
            // Once the entries expire, room is made.
            #expect(try await store.consume("c", expiresAt: now.addingTimeInterval(30), now: now.addingTimeInterval(11)))
            #expect(store.count == 1)
        }
    }
}
