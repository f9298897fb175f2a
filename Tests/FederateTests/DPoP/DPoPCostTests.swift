import Crypto
import Foundation
import Testing
@testable import FederateTokens

/// What a DPoP-bound request costs a resource server, measured in this (debug) build against
/// one ID-token verification plus one raw P-256 verification. Unoptimized Swift parsing makes
/// the proof's share larger here than in a release build (measured 2.4x on a loaded 2-core
/// machine), so this only guards against gross regressions (4x); the release comparison is the
/// `DPoP-bound request` benchmark (Benchmarks/).
@Suite("DPoP cost") struct DPoPCostTests {
    @Test func aBoundRequestCostsAboutOneTokenAndOneP256Verification() async throws {
        let clock = FederateClock.fixed(at: Date(timeIntervalSince1970: 1_700_000_000))
        let rsa = try JWSSigningKey.generateRSA(keyID: "rsa")
        let claims: [String: JSONValue] = [
            "iss": "https://as.example.com", "aud": "api", "sub": "alice", "iat": .integer(1_700_000_000), "exp": .integer(1_700_003_600),
        ]
        let token = try rsa.sign(claims: claims, algorithm: .rs256)
        let keySet = try JSONWebKeySet(keys: [try JSONWebKey(jwk: rsa.publicJWK(algorithm: .rs256) ?? [:])])
        let idTokens = IDTokenVerifier(
            policy: IDTokenPolicy(issuers: ["https://as.example.com"], audiences: ["api"], allowedAlgorithms: [.rs256]), keys: keySet,
            clock: clock)
        let key = DPoPKey.generateES256()
        let url = "https://api.example.com/orders"
        let proof = try key.proof(method: "GET", uri: url, issuedAt: clock.now, accessToken: token)
        let proofs = DPoPProofVerifier(clock: clock)

        let raw = P256.Signing.PrivateKey()
        let digest = SHA256.hash(data: Array("header.payload".utf8))
        let signature = try raw.signature(for: digest)

        func time(_ body: () async throws -> Void) async rethrows -> Duration {
            let start = clock.instant
            for _ in 0..<200 { try await body() }
            return clock.instant - start
        }
        // Interleaved, best of three, so a burst of load elsewhere hits both sides alike.
        var baseline = Duration.seconds(3600), bound = Duration.seconds(3600)
        for _ in 0..<3 {
            baseline = min(
                baseline,
                try await time {
                    _ = try await idTokens.verify(token)
                    precondition(raw.publicKey.isValidSignature(signature, for: digest))
                })
            bound = min(
                bound,
                try await time {
                    _ = try await idTokens.verify(token)
                    let verified = try proofs.verify(proof, method: "GET", uri: url, accessToken: token)
                    precondition(ConstantTime.equals(verified.thumbprint, key.thumbprint))
                })
        }
        print("DPoP cost (debug, 200 requests): token + raw P-256 \(baseline), DPoP-bound request \(bound)")
        #expect(bound < baseline * 4, "a DPoP-bound request took \(bound) against \(baseline) for a token and a raw P-256 verification")
    }
}
