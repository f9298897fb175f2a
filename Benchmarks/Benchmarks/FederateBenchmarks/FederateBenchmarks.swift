// Federate's verification hot path, measured with package-benchmark.
//
//   cd Benchmarks && swift package benchmark --target FederateBenchmarks
//
// Every "verify" benchmark is one full ID-token verification per iteration (parse, key
// lookup, signature, claims) against a key set that is already parsed: the warm-cache case.
// The "raw" benchmarks are the bare swift-crypto primitive on a precomputed digest and
// signature: the in-process ceiling that the full verification is compared with.
// The "batch" pair runs the same 256 RS256 verifications in one task, then split across two
// concurrent tasks: with no lock or actor on the hot path the second takes about half the
// wall-clock time on two free cores. See Docs/Performance.md.

import Benchmark
import Crypto
import Federate
import Foundation
import _CryptoExtras

/// Everything the benchmarks verify, built once per benchmark process.
struct Fixture: @unchecked Sendable {
    static let issuer = "https://bench.federate.dev"
    static let audience = "bench-client"

    let rsaToken: String
    let ecToken: String
    let keySet: JSONWebKeySet
    let verifier: IDTokenVerifier

    let rsaPublicKey: _RSA.Signing.PublicKey
    let rsaSignature: _RSA.Signing.RSASignature
    let rsaDigest: SHA256Digest
    let p256PublicKey: P256.Signing.PublicKey
    let p256Signature: P256.Signing.ECDSASignature
    let p256Digest: SHA256Digest

    init() {
        do {
            let rsa = try JWSSigningKey.generateRSA(keyID: "bench-rsa")
            let ec = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "bench-ec")
            let now = Int64(Date().timeIntervalSince1970)
            // Valid for a day, so a long run never crosses `exp`.
            let claims: [String: JSONValue] = [
                "iss": .string(Self.issuer), "aud": .string(Self.audience), "sub": "248289761001",
                "email": "alice@example.com", "email_verified": true, "name": "Alice Example",
                "iat": .integer(now - 60), "exp": .integer(now + 86_400),
            ]
            rsaToken = try rsa.sign(claims: claims, algorithm: .rs256)
            ecToken = try ec.sign(claims: claims, algorithm: .es256)
            let jwks: JSONValue = ["keys": [
                .object(rsa.publicJWK(algorithm: .rs256)!), .object(ec.publicJWK(algorithm: .es256)!),
            ]]
            keySet = try JSONWebKeySet(jwks: JSONSerializer.bytes(jwks))
            verifier = IDTokenVerifier(
                policy: IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.audience], allowedAlgorithms: [.rs256, .es256]),
                keys: keySet
            )

            // The raw baselines: the same RSA-2048 and P-256 primitives, nothing else.
            let message = Array("header.payload".utf8)
            let rsaPrivate = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            rsaPublicKey = rsaPrivate.publicKey
            rsaDigest = SHA256.hash(data: message)
            rsaSignature = try rsaPrivate.signature(for: rsaDigest, padding: .insecurePKCS1v1_5)
            let p256Private = P256.Signing.PrivateKey()
            p256PublicKey = p256Private.publicKey
            p256Digest = SHA256.hash(data: message)
            p256Signature = try p256Private.signature(for: p256Digest)
        } catch {
            fatalError("benchmark fixture: \(error)")
        }
    }

    static let shared = Fixture()
}

/// One sign-in's worth of checks that must pass, or the benchmark measures a failure path.
@inline(never)
func verifySync(_ token: String, _ fixture: Fixture) {
    do {
        blackHole(try fixture.verifier.verify(token, keySet: fixture.keySet))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

@inline(never)
func verifyAsync(_ token: String, _ fixture: Fixture) async {
    do {
        blackHole(try await fixture.verifier.verify(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// Verifies `count` RS256 tokens, split across `tasks` concurrent child tasks.
func verifyBatch(count: Int, tasks: Int, _ fixture: Fixture) async {
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                for _ in 0..<(count / tasks) { verifySync(fixture.rsaToken, fixture) }
            }
        }
    }
}

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
    Benchmark("raw RSA-2048 verify (swift-crypto)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            let ok = fixture.rsaPublicKey.isValidSignature(fixture.rsaSignature, for: fixture.rsaDigest, padding: .insecurePKCS1v1_5)
            precondition(ok)
            blackHole(ok)
        }
    }
    Benchmark("raw P-256 verify (swift-crypto)", configuration: perOperation) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations {
            let ok = fixture.p256PublicKey.isValidSignature(fixture.p256Signature, for: fixture.p256Digest)
            precondition(ok)
            blackHole(ok)
        }
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
    Benchmark("IDToken RS256 verify x\(batchSize) (1 task)", configuration: perBatch) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyBatch(count: batchSize, tasks: 1, fixture) }
    }
    Benchmark("IDToken RS256 verify x\(batchSize) (2 concurrent tasks)", configuration: perBatch) { benchmark in
        let fixture = Fixture.shared
        for _ in benchmark.scaledIterations { await verifyBatch(count: batchSize, tasks: 2, fixture) }
    }
}
