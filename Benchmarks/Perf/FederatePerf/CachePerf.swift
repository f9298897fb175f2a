// Issue 42's in-process goals for the verified-token cache: a hit against a raw RSA-2048
// verify, a miss against a verification without the cache, and a flood of one-time tokens
// against 64 repeated ones (the hit rate read from the cache's own counters).

import CoreMetrics
import Crypto
import Federate
import Foundation
import PerfFixtures
import Synchronization

/// Counts what the verified-token caches count, so the flood's hit rate is theirs.
final class CountingMetrics: MetricsFactory, Sendable {
    final class Count: CounterHandler, Sendable {
        let value = Atomic<Int64>(0)
        func increment(by amount: Int64) { value.add(amount, ordering: .relaxed) }
        func reset() { value.store(0, ordering: .relaxed) }
    }

    private let counters = Mutex<[String: Count]>([:])

    func total(_ label: String) -> Int64 { counters.withLock { $0[label]?.value.load(ordering: .relaxed) ?? 0 } }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counters.withLock { counters in
            if let existing = counters[label] { return existing }
            let created = Count()
            counters[label] = created
            return created
        }
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { NOOPMetricsHandler.instance }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// Tokens for the cache's measures: 64 repeated RS256 ID tokens, and ES256 ones each used once.
struct CacheFixture {
    let repeated: [String]
    let oneTime: [String]
    let keySet: JSONWebKeySet
    let policy: IDTokenPolicy

    init(oneTime count: Int) {
        do {
            let rsa = try JWSSigningKey.generateRSA(keyID: "cache-rsa")
            let ec = try JWSSigningKey.fromPEM(P256.Signing.PrivateKey().pemRepresentation, keyID: "cache-ec").key
            let now = Int64(Date().timeIntervalSince1970)
            func claims(_ subject: String) -> [String: JSONValue] {
                [
                    "iss": .string(Fixture.issuer), "aud": .string(Fixture.audience), "sub": .string(subject),
                    "azp": .string(Fixture.audience),
                    "email": "alice@example.com", "email_verified": true, "name": "Alice Example", "given_name": "Alice",
                    "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ7dX4kW2qz9vLmP0rT5sYbN1uE8fHjKcQwZaVxRtGyUiOp=s96-c",
                    "iat": .integer(now - 60), "exp": .integer(now + 86_400),
                ]
            }
            repeated = try (0..<64).map { try rsa.sign(claims: claims("repeated-\($0)"), algorithm: .rs256) }
            oneTime = try (0..<count).map { try ec.sign(claims: claims("one-time-\($0)"), algorithm: .es256) }
            guard let rsaJWK = rsa.publicJWK(algorithm: .rs256), let ecJWK = ec.publicJWK(algorithm: .es256) else {
                fatalError("cache fixture: no public JWK")
            }
            keySet = try JSONWebKeySet(keys: [JSONWebKey(jwk: rsaJWK), JSONWebKey(jwk: ecJWK)])
            policy = IDTokenPolicy(issuers: [Fixture.issuer], audiences: [Fixture.audience], allowedAlgorithms: [.rs256, .es256])
        } catch {
            fatalError("cache fixture: \(error)")
        }
    }

    func verifier(_ cache: VerifiedTokenCacheConfiguration, observability: Observability = .disabled) -> any TokenVerifier {
        IDTokenBearerVerifier(
            providerID: "oidc.bench", verifier: IDTokenVerifier(policy: policy, keys: keySet, observability: observability, cache: cache))
    }
}

/// Verifies `token`, which must pass.
@inline(never)
func verifyWith(_ verifier: any TokenVerifier, _ token: String) async {
    do {
        sink(try await verifier.verify(token))
    } catch {
        fatalError("verification failed: \(error)")
    }
}

/// Walks a list of tokens, one per call (each closure of a ratio keeps its own).
final class TokenCursor: @unchecked Sendable {
    let tokens: [String]
    var next = 0
    init(_ tokens: [String]) { self.tokens = tokens }
    func take() -> String {
        defer { next = next + 1 == tokens.count ? 0 : next + 1 }
        return tokens[next]
    }
}

@Sendable func measureCache(seconds: Double) async {
    let fixture = Fixture.shared
    // A hit: the Google-shaped token (about 1 KB) again and again, through the bearer verifier
    // with the cache on (the default), against the raw RSA-2048 verify.
    await reportRatio("ratio: cache hit (1 KB ID token) / raw RSA-2048 verify") {
        await costRatio(seconds: seconds) {
            fixture.verifyRawRSA()
        } candidate: {
            await verifyToken(fixture.googleShapedToken, fixture, cached: true)
        }
    }
    await report("cache hit, bearer TokenVerifier.verify") {
        await rate(seconds: seconds) { await verifyToken(fixture.googleShapedToken, fixture, cached: true) }
    }
    let names = ["ratio: cache miss / cache off (RS256)", "flood: repeated tokens' hit rate", "ratio: flood, cache on / cache off"]
    if let only, !names.contains(where: { $0.contains(only) }) { return }
    let tokens = CacheFixture(oneTime: 40_000)
    // A miss: 64 tokens cycled through a cache of 16, so every one is verified in full (and
    // inserted, evicting another), against the same tokens through a verifier without a cache.
    let missing = tokens.verifier(.init(maximumEntries: 16)), uncached = tokens.verifier(.disabled)
    let missCursor = TokenCursor(tokens.repeated), plainCursor = TokenCursor(tokens.repeated)
    await reportRatio("ratio: cache miss / cache off (RS256)") {
        await costRatio(seconds: seconds) {
            await verifyWith(uncached, plainCursor.take())
        } candidate: {
            await verifyWith(missing, missCursor.take())
        }
    }
    // The flood: 64 repeated tokens and one-time tokens, half each, through the default cache.
    var sequence: [String] = []
    for (index, token) in tokens.oneTime.enumerated() {
        sequence.append(tokens.repeated[index % 64])
        sequence.append(token)
    }
    let metrics = CountingMetrics()
    let flooded = tokens.verifier(.default, observability: Observability(metrics: metrics))
    for token in sequence { await verifyWith(flooded, token) }
    let hits = metrics.total("federate_verified_token_cache_hits_total")
    let misses = metrics.total("federate_verified_token_cache_misses_total")
    let evictions = metrics.total("federate_verified_token_cache_evictions_total")
    let line = String(
        format: "flood: repeated tokens' hit rate %.2f %% (%lld hits of %d uses; %lld misses, %lld evictions in all)\n",
        Double(hits) * 100 / Double(sequence.count / 2), hits, sequence.count / 2, misses, evictions)
    FileHandle.standardOutput.write(Data(line.utf8))
    // The same flood's cost with the cache on over the cost with it off.
    let onCursor = TokenCursor(sequence), offCursor = TokenCursor(sequence)
    let on = tokens.verifier(.default)
    await reportRatio("ratio: flood, cache on / cache off") {
        await costRatio(seconds: seconds) {
            await verifyWith(uncached, offCursor.take())
        } candidate: {
            await verifyWith(on, onCursor.take())
        }
    }
}
