import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import FederateTokens

/// CI's performance smoke test (issue 16, item 6; Docs/Performance.md, "The smoke test"):
/// ID-token verification in process, as a ratio to the raw signature check it contains,
/// measured in the same process at the same time, must not drop by 30 % from the recorded
/// ratio of this build configuration.
///
/// A ratio, not a time: the machine's speed and load mostly cancel out. Raw and full
/// verifications alternate in small batches and each side keeps its fastest batch, so a batch
/// preempted by a parallel test is discarded rather than averaged in. A slow spell of the
/// machine (a neighbour on the host) slows the Swift code more than BoringSSL's assembly and
/// lowers the ratio for a whole measurement, so a ratio below the line is measured again, up
/// to three times, and the best counts: a slower pipeline stays below the line every time
/// (``aSlowerPipelineIsCaught``). The suite runs its tests one at a time (they would otherwise
/// share the cores with each other) and takes about three seconds in debug: making the RSA
/// key, then the measurements.
///
/// Re-record after a deliberate change: `FEDERATE_PERF_RECORD=1 swift test --filter
/// VerificationRatioSmokeTests` prints the ratios; copy them into ``RecordedRatios``.
@Suite(.serialized) struct VerificationRatioSmokeTests {
    /// The ratios (full verification per second ÷ raw signature checks per second), recorded
    /// on this project's 2-core machine kind, per build configuration.
    enum RecordedRatios {
        #if DEBUG
            // 2026-11-25 evening, debug build, the slower of the two machines of this kind seen
            // that day (`openssl speed rsa2048` 50,600 verify/s against 80,000 in the morning):
            // twenty runs gave 0.40–0.42, 0.65–0.67 and 0.40–0.42, and 0.34–0.39 in slow spells.
            // The morning's machine gave 0.54, 0.75 and 0.54 for the same code, so there a drop
            // must pass 45 % to fail. (2026-11-23: 0.38, 0.63, 0.36.)
            static let rs256 = 0.41
            static let es256 = 0.65
        #else
            // Release: FederatePerf's figures of 2026-11-25 in Docs/Performance.md (74,610 / 89,177
            // RS256, 28,213 / 30,616 ES256), measured on the one async `verify`.
            static let rs256 = 0.84
            static let es256 = 0.92
        #endif
    }

    /// The drop that fails the test: 30 %.
    static let allowedDrop = 0.30

    @Test func rs256RatioHolds() async throws {
        let fixture = try RatioFixture.shared
        let ratio = await RatioProbe.best(reaching: Self.line(RecordedRatios.rs256)) {
            await RatioProbe.ratio(raw: { fixture.rawRSA() }, full: { await fixture.verify(fixture.rs256Token) })
        }
        try check("RS256", measured: ratio, recorded: RecordedRatios.rs256)
    }

    @Test func es256RatioHolds() async throws {
        let fixture = try RatioFixture.shared
        let ratio = await RatioProbe.best(reaching: Self.line(RecordedRatios.es256)) {
            await RatioProbe.ratio(raw: { fixture.rawP256() }, full: { await fixture.verify(fixture.es256Token) })
        }
        try check("ES256", measured: ratio, recorded: RecordedRatios.es256)
    }

    /// The probe can fail: verifying every token twice halves the ratio, which the 30 % rule
    /// refuses against the recorded ratio (the one CI compares with), however many times it is
    /// measured again. Compared with a normal ratio measured alongside, a parallel test's load
    /// on that one measurement could hide it.
    @Test func aSlowerPipelineIsCaught() async throws {
        let fixture = try RatioFixture.shared
        let recorded = RecordedRatios.es256
        let doubled = await RatioProbe.best(reaching: Self.line(recorded)) {
            await RatioProbe.ratio(
                raw: { fixture.rawP256() },
                full: {
                    await fixture.verify(fixture.es256Token)
                    await fixture.verify(fixture.es256Token)
                })
        }
        #expect(!Self.holds(measured: doubled, recorded: recorded), "a pipeline twice as slow went unnoticed (\(doubled) vs \(recorded))")
        #expect(Self.holds(measured: recorded * 0.75, recorded: recorded))
        #expect(!Self.holds(measured: recorded * 0.65, recorded: recorded))
    }

    static func holds(measured: Double, recorded: Double) -> Bool {
        measured >= line(recorded)
    }

    /// The lowest ratio that passes: the recorded one less the allowed drop.
    static func line(_ recorded: Double) -> Double {
        recorded * (1 - allowedDrop)
    }

    private func check(_ name: String, measured: Double, recorded: Double) throws {
        if ProcessInfo.processInfo.environment["FEDERATE_PERF_RECORD"] == "1" {
            print("VerificationRatioSmokeTests: \(name) ratio \(String(format: "%.3f", measured)) (recorded \(recorded))")
        }
        #expect(
            Self.holds(measured: measured, recorded: recorded),
            "\(name): full verification ran at \(measured) of the raw signature check's rate; recorded \(recorded), at most a 30 % drop allowed"
        )
    }
}

/// Alternating batches of a raw check and a full verification; the fastest batch of each.
enum RatioProbe {
    /// 200 rounds (about 0.15 s for RS256 in debug): with 24, one run in three on a shared host
    /// came out 20 % low, both sides slowed but the Swift side more.
    static let rounds = 200
    static let batch = 8
    /// How many times a ratio below the line is measured.
    static let attempts = 3

    /// The best of up to ``attempts`` measurements, stopping at the first that reaches `line`
    /// (a synchronous measurement is passed as it is).
    static func best(reaching line: Double, _ measure: () async -> Double) async -> Double {
        var best = 0.0
        for _ in 0..<attempts {
            best = max(best, await measure())
            if best >= line { break }
        }
        return best
    }

    /// Full verifications per second ÷ raw checks per second.
    static func ratio(raw: () -> Void, full: () -> Void) -> Double {
        raw()
        full()
        var rawBest = Duration.seconds(1_000)
        var fullBest = Duration.seconds(1_000)
        for _ in 0..<rounds {
            rawBest = min(rawBest, time { for _ in 0..<batch { raw() } })
            fullBest = min(fullBest, time { for _ in 0..<batch { full() } })
        }
        return rawBest / fullBest
    }

    /// The async variant, for the server's path.
    static func ratio(raw: () -> Void, full: () async -> Void) async -> Double {
        raw()
        await full()
        var rawBest = Duration.seconds(1_000)
        var fullBest = Duration.seconds(1_000)
        for _ in 0..<rounds {
            rawBest = min(rawBest, time { for _ in 0..<batch { raw() } })
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<batch { await full() }
            fullBest = min(fullBest, clock.now - start)
        }
        return rawBest / fullBest
    }

    private static func time(_ body: () -> Void) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        return clock.now - start
    }
}

/// An RS256 and an ES256 ID token with their key set and verifier, and the raw RSA-2048 and
/// P-256 checks to compare them with (the same primitives, over a precomputed digest).
final class RatioFixture: Sendable {
    static let issuer = "https://ratio.federate.dev"
    static let audience = "ratio-client"
    /// The instant the tokens are checked at.
    static let instant = Date(timeIntervalSince1970: 1_800_000_000)

    let rs256Token: String
    let es256Token: String
    let keySet: JSONWebKeySet
    let verifier: IDTokenVerifier
    let rsaKey: _RSA.Signing.PublicKey
    let rsaSignature: _RSA.Signing.RSASignature
    let p256Key: P256.Signing.PublicKey
    let p256Signature: P256.Signing.ECDSASignature
    let digest: SHA256Digest

    static var shared: RatioFixture { get throws { try made.get() } }
    private static let made = Result { try RatioFixture() }

    private init() throws {
        let rsa = try JWSSigningKey.generateRSA(keyID: "ratio-rsa")
        let ec = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "ratio-ec")
        let now = Int64(Self.instant.timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "aud": .string(Self.audience), "sub": "248289761001",
            "email": "alice@example.com", "email_verified": true, "name": "Alice Example",
            "iat": .integer(now - 60), "exp": .integer(now + 3_600),
        ]
        rs256Token = try rsa.sign(claims: claims, algorithm: .rs256)
        es256Token = try ec.sign(claims: claims, algorithm: .es256)
        guard let rsaJWK = rsa.publicJWK(algorithm: .rs256), let ecJWK = ec.publicJWK(algorithm: .es256) else {
            throw FederateError(.invalidConfiguration, "the ratio fixture's keys have no public JWK")
        }
        let jwks: JSONValue = ["keys": [.object(rsaJWK), .object(ecJWK)]]
        keySet = try JSONWebKeySet(jwks: JSONSerializer.bytes(jwks))
        // The verified-token cache off: the ratio is a full verification's, every time.
        verifier = IDTokenVerifier(
            policy: IDTokenPolicy(issuers: [Self.issuer], audiences: [Self.audience], allowedAlgorithms: [.rs256, .es256]),
            keys: keySet, clock: .fixed(at: Self.instant), cache: .disabled)

        let message = Array("header.payload".utf8)
        digest = SHA256.hash(data: message)
        let rsaPrivate = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        rsaKey = rsaPrivate.publicKey
        rsaSignature = try rsaPrivate.signature(for: digest, padding: .insecurePKCS1v1_5)
        let p256Private = P256.Signing.PrivateKey()
        p256Key = p256Private.publicKey
        p256Signature = try p256Private.signature(for: digest)
    }

    func rawRSA() {
        precondition(rsaKey.isValidSignature(rsaSignature, for: digest, padding: .insecurePKCS1v1_5))
    }

    func rawP256() {
        precondition(p256Key.isValidSignature(p256Signature, for: digest))
    }

    func verify(_ token: String) async {
        do {
            _ = try await verifier.verify(token)
        } catch {
            preconditionFailure("the ratio fixture's token must verify: \(error)")
        }
    }

}
