import Federate
import FederateRelyingParty
import FederateTestSupport
import Foundation
import MetricsTestKit
import Synchronization
import Testing
@testable import FederateTokens

/// The verified-token cache (issue 42): a repeated token skips its signature check and nothing
/// else; the verdict is always the full pipeline's.
@Suite struct VerifiedTokenCacheTests {
    /// A key provider whose current set a test swaps (a rotation, a refresh).
    final class SwappableKeys: KeySetProvider {
        let current: Mutex<JSONWebKeySet>
        init(_ keySet: JSONWebKeySet) { current = Mutex(keySet) }
        func swap(to keySet: JSONWebKeySet) { current.withLock { $0 = keySet } }
        nonisolated(nonsending) func keySet() async throws(FederateError) -> JSONWebKeySet { current.withLock { $0 } }
        nonisolated(nonsending) func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? { nil }
    }

    static func keySet(_ keys: JWSSigningKey...) throws -> JSONWebKeySet {
        try JSONWebKeySet(keys: keys.map { try JSONWebKey(jwk: $0.publicJWK() ?? [:]) })
    }

    static func verifier(
        keys: any KeySetProvider = Fixtures.keySet, clock: FederateClock = .system, observability: Observability = .disabled,
        cache: VerifiedTokenCacheConfiguration = .default
    ) -> IDTokenVerifier {
        IDTokenVerifier(policy: Fixtures.policy(), keys: keys, clock: clock, observability: observability, cache: cache)
    }

    static func statistics(_ verifier: IDTokenVerifier) throws -> VerifiedTokenCache.Statistics {
        try #require(verifier.plain.cache).statistics
    }

    @Test func aHitReturnsTheSameVerifiedTokenWithoutVerifyingAgain() async throws {
        let verifier = Self.verifier()
        let token = Fixtures.token(["email": "alice@example.com"])
        let first = try await verifier.verify(token)
        let second = try await verifier.verify(token)
        #expect(
            try Self.statistics(verifier)
                == .init(hits: 1, misses: 1, evictions: 0, entries: 1, protectedEntries: 1, bytes: second.bytes(token)))
        #expect(first.claims == second.claims && first.claims.count == 6)
        #expect(first.subject == second.subject && first.keyID == second.keyID && first.algorithm == second.algorithm)
        #expect(second.email == "alice@example.com")
        // The bearer verifier over it gives the same caller.
        let bearer = IDTokenBearerVerifier(providerID: "oidc.corp", verifier: verifier)
        let caller = try await bearer.verify(token)
        #expect(caller.subject == "user-1" && caller.providerID == "oidc.corp" && caller.kind == .idToken)
        #expect(try Self.statistics(verifier).hits == 2)
        // Off, nothing is remembered.
        #expect(Self.verifier(cache: .disabled).plain.cache == nil)
    }

    /// A rule of the caller's own, counting its runs.
    final class CountingRule: ClaimRule {
        let runs = Mutex(0)
        func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) { runs.withLock { $0 += 1 } }
    }

    @Test func aHitRunsTheCallersOwnRulesAgain() async throws {
        let rule = CountingRule()
        let verifier = IDTokenVerifier(
            policy: Fixtures.policy { $0.additionalRules = [rule] }, keys: Fixtures.keySet, observability: .disabled)
        let token = Fixtures.token()
        for _ in 0..<3 { _ = try await verifier.verify(token) }
        #expect(try Self.statistics(verifier).hits == 2)
        #expect(rule.runs.withLock { $0 } == 3)
    }

    @Test func aCachedTokenIsRefusedOnceTheClockPassesItsExpiry() async throws {
        let time = TestClock()
        let verifier = Self.verifier(clock: time.clock)
        let now = Int64(time.now.timeIntervalSince1970)
        let token = Fixtures.token(["iat": .integer(now), "exp": .integer(now + 120)])
        _ = try await verifier.verify(token)
        _ = try await verifier.verify(token)
        #expect(try Self.statistics(verifier).hits == 1)
        // Within the 60 s tolerance past `exp`: still accepted, from the cache.
        time.advance(by: .seconds(170))
        #expect(await refusalCode { try await verifier.verify(token) } == nil)
        time.advance(by: .seconds(20))
        #expect(await refusalCode { try await verifier.verify(token) } == .tokenExpired)
        #expect(try Self.statistics(verifier).entries == 0)
        #expect(await refusalCode { try await verifier.verify(token) } == .tokenExpired)
    }

    @Test func aTokenNotYetValidIsRefusedAndThenAcceptedRefusalsAreNotCached() async throws {
        let time = TestClock()
        let verifier = Self.verifier(clock: time.clock)
        let now = Int64(time.now.timeIntervalSince1970)
        let early = Fixtures.token(["iat": .integer(now), "nbf": .integer(now + 300), "exp": .integer(now + 900)])
        #expect(await refusalCode { try await verifier.verify(early) } == .notYetValid)
        #expect(await refusalCode { try await verifier.verify(early) } == .notYetValid)
        #expect(try Self.statistics(verifier).entries == 0)
        time.advance(by: .seconds(300))
        #expect(await refusalCode { try await verifier.verify(early) } == nil)
        // A bad signature, twice: verified in full both times, never remembered.
        let valid = Fixtures.token()
        let forged = String(valid.dropLast(2)) + (valid.hasSuffix("AA") ? "BA" : "AA")
        #expect(await refusalCode { try await verifier.verify(forged) } == .invalidSignature)
        #expect(await refusalCode { try await verifier.verify(forged) } == .invalidSignature)
        #expect(try Self.statistics(verifier).entries == 1)
        #expect(try Self.statistics(verifier).misses == 5)
    }

    @Test func aRotationThatRemovesTheKeyInvalidatesTheCachedVerdict() async throws {
        let keys = SwappableKeys(try Self.keySet(Fixtures.rsa, Fixtures.ec))
        let verifier = Self.verifier(keys: keys)
        let token = Fixtures.token()
        _ = try await verifier.verify(token)
        _ = try await verifier.verify(token)
        #expect(try Self.statistics(verifier).hits == 1)
        // The key is gone: the token names a key the set lacks.
        keys.swap(to: try Self.keySet(Fixtures.ec))
        #expect(await refusalCode { try await verifier.verify(token) } == .unknownKey)
        // Back, as a new set: verified in full again, then cached again.
        keys.swap(to: try Self.keySet(Fixtures.rsa))
        #expect(await refusalCode { try await verifier.verify(token) } == nil)
        // A refresh that puts another key under the same kid: the signature no longer verifies.
        keys.swap(to: try Self.keySet(Fixtures.otherRSA))
        #expect(await refusalCode { try await verifier.verify(token) } == .invalidSignature)
        #expect(try Self.statistics(verifier).hits == 1)
    }

    @Test func tokensDifferingOnlyByNormalisationAreDistinctEntries() async throws {
        let verifier = Self.verifier()
        // "é" precomposed and decomposed: equal as Strings, different bytes, each signed over its own.
        let composed = Fixtures.token(["sub": "jos\u{E9}"])
        let decomposed = Fixtures.token(["sub": "jose\u{301}"])
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        let first = try await verifier.verify(composed)
        let second = try await verifier.verify(decomposed)
        #expect(Array(first.subject.utf8) == Array("jos\u{E9}".utf8))
        #expect(Array(second.subject.utf8) == Array("jose\u{301}".utf8))
        let again = try await verifier.verify(decomposed)
        #expect(Array(again.subject.utf8) == Array("jose\u{301}".utf8))
        #expect(try Self.statistics(verifier).entries == 2)
        // A look-alike of a cached token's header (KELVIN SIGN for K), not re-signed: refused as
        // malformed after its twin was cached, never answered from its twin's entry.
        let twin = try #require(
            (0..<500).lazy.map { Fixtures.token(["jti": .string("j\($0)")], header: ["typ": "JWT", "pad": .integer(Int64($0))]) }
                .first { $0.split(separator: ".")[0].contains("K") })
        _ = try await verifier.verify(twin)
        _ = try await verifier.verify(twin)
        let lookAlike = twin.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(lookAlike == twin && !lookAlike.exactlyEquals(twin))
        #expect(await refusalCode { try await verifier.verify(lookAlike) } == .malformedToken)
    }

    @Test func theSignatureAndTheSigningInputMustBothMatch() async throws {
        let verifier = Self.verifier()
        let token = Fixtures.token()
        _ = try await verifier.verify(token)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // The same signing input with another signature (a valid token's payload seen in a log,
        // signature stripped): verified in full, refused.
        let forged = parts[0] + "." + parts[1] + "." + String(parts[2].dropLast(2)) + (parts[2].hasSuffix("AA") ? "BA" : "AA")
        #expect(await refusalCode { try await verifier.verify(forged) } == .invalidSignature)
        // The same signature over another payload: likewise.
        let other = Fixtures.token(["sub": "mallory"]).split(separator: ".").map(String.init)
        #expect(await refusalCode { try await verifier.verify(other[0] + "." + other[1] + "." + parts[2]) } == .invalidSignature)
        #expect(try Self.statistics(verifier).hits == 0)
        #expect(await refusalCode { try await verifier.verify(token) } == nil)
        #expect(try Self.statistics(verifier).hits == 1)
    }

    @Test func aFloodOfOneTimeTokensDoesNotPushOutTheRepeatedOnes() async throws {
        // One verified token stands for every entry: the rule under test is the cache's own.
        let entry = VerifiedTokenCache.Entry(token: try await Self.verifier(cache: .disabled).plain.verify(Fixtures.token()), keySet: 1)
        let cache = VerifiedTokenCache(configuration: .init(maximumEntries: 100), metrics: nil)
        let repeated = (0..<20).map { "header.repeated-\($0).signature-\($0)" }
        var flood = 0
        var repeatedHits = 0
        var repeatedUses = 0
        for round in 0..<50 {
            for token in repeated {
                repeatedUses += 1
                if cache.use(token, entry) { repeatedHits += 1 }
            }
            // Between two uses of each repeated token, one-time tokens: 50 at first, then twice the
            // cache's size every round, which would push every repeated token out of a plain LRU.
            for _ in 0..<(round == 0 ? 50 : 200) {
                flood += 1
                #expect(!cache.use("header.one-time.flood-\(flood)", entry))
            }
        }
        // Each repeated token misses on its first use only (its second finds it on probation and
        // moves it to the protected segment, which one-time tokens never enter).
        #expect(repeatedHits == repeatedUses - repeated.count)
        let statistics = cache.statistics
        #expect(statistics.entries == 100 && statistics.protectedEntries == 20)
        #expect(statistics.evictions == 20 + flood - 100)
    }

    @Test func aTokenReusedFurtherApartThanProbationIsLongStillGetsProtected() async throws {
        let entry = VerifiedTokenCache.Entry(token: try await Self.verifier(cache: .disabled).plain.verify(Fixtures.token()), keySet: 1)
        let cache = VerifiedTokenCache(configuration: .init(maximumEntries: 100), metrics: nil)
        let repeated = (0..<20).map { "header.repeated-\($0).signature-\($0)" }
        var flood = 0
        var hits = 0
        var uses = 0
        for _ in 0..<30 {
            for token in repeated {
                uses += 1
                if cache.use(token, entry) { hits += 1 }
            }
            // 150 one-time tokens between two uses: each repeated token is evicted from
            // probation before its second use, and remembered as evicted.
            for _ in 0..<150 {
                flood += 1
                #expect(!cache.use("header.one-time.flood-\(flood)", entry))
            }
        }
        // Two misses each (first use; second, back from eviction, straight to protected), then hits.
        #expect(hits == uses - 2 * repeated.count)
        #expect(cache.statistics.protectedEntries == 20)
    }

    @Test func theByteBudgetAndTheTokenSizeLimitBoundTheCache() async throws {
        let entry = VerifiedTokenCache.Entry(token: try await Self.verifier(cache: .disabled).plain.verify(Fixtures.token()), keySet: 1)
        let cache = VerifiedTokenCache(
            configuration: .init(maximumEntries: 1000, maximumBytes: 10 * (2 * 1000 + 256), maximumTokenBytes: 2000), metrics: nil)
        for index in 0..<50 { _ = cache.use(String(repeating: "x", count: 992) + "." + String(format: "%04d", index) + "sig", entry) }
        #expect(cache.statistics.entries == 10 && cache.statistics.bytes == 10 * 2256)
        #expect(cache.admits(length: 2000) && !cache.admits(length: 2001))
        // A verifier does not remember a token longer than its limit.
        let verifier = Self.verifier(cache: .init(maximumTokenBytes: 256))
        let token = Fixtures.token()
        #expect(token.utf8.count > 256)
        _ = try await verifier.verify(token)
        _ = try await verifier.verify(token)
        #expect(try Self.statistics(verifier) == .init())
    }

    @Test func hitsMissesAndEvictionsAreCounted() async throws {
        let metrics = TestMetrics()
        let verifier = Self.verifier(observability: Observability(metrics: metrics), cache: .init(maximumEntries: 2))
        let tokens = (0..<3).map { Fixtures.token(["jti": .string("t\($0)")]) }
        for token in tokens { _ = try await verifier.verify(token) }
        _ = try await verifier.verify(tokens[2])
        _ = try await verifier.verify(tokens[2])
        let kind = [("kind", "id_token")]
        #expect(metrics.counterTotal(label: "federate_verified_token_cache_hits_total", dimensions: kind) == 2)
        #expect(metrics.counterTotal(label: "federate_verified_token_cache_misses_total", dimensions: kind) == 3)
        #expect(metrics.counterTotal(label: "federate_verified_token_cache_evictions_total", dimensions: kind) == 1)
        // Hits are verifications too.
        #expect(metrics.counterTotal(label: "federate_verifications_total", dimensions: kind + [("outcome", "ok")]) == 5)
    }

    @Test func accessTokensAreCachedAndVerifiersCanBeResizedOrTurnedOff() async throws {
        let verifier = AccessTokenVerifier(
            policy: AccessTokenPolicy(issuer: Fixtures.issuer, resource: "https://api.example"), keys: Fixtures.keySet,
            observability: .disabled)
        let now = Int64(Fixtures.now)
        let token = try Fixtures.rsa.sign(
            claims: [
                "iss": .string(Fixtures.issuer), "sub": "alice", "aud": "https://api.example", "client_id": "app", "jti": "j1",
                "iat": .integer(now), "exp": .integer(now + 300), "scope": "orders:read",
            ], algorithm: .rs256, header: ["typ": "at+jwt"])
        let router = CallerTokenRouter(
            idTokens: IDTokenBearerVerifier(providerID: "oidc.corp", verifier: Self.verifier()), accessTokens: verifier)
        _ = try await router.verify(token)
        let caller = try await router.verify(token)
        #expect(caller.scopes.contains("orders:read") && caller.kind == .accessToken)
        #expect(try #require(verifier.pipeline.cache).statistics.hits == 1)
        // federate serve's setting applies through the router to the verifiers in it.
        let off = try #require(withVerifiedTokenCache(router, .disabled) as? CallerTokenRouter)
        #expect((off.accessTokens as? AccessTokenVerifier)?.pipeline.cache == nil)
        #expect((off.idTokens as? IDTokenBearerVerifier)?.verifier.plain.cache == nil)
        let sized = try #require(withVerifiedTokenCache(router, .init(maximumEntries: 5)) as? CallerTokenRouter)
        #expect((sized.accessTokens as? AccessTokenVerifier)?.pipeline.cache?.configuration.maximumEntries == 5)
    }

    /// The largest configuration a caller can pass is a cache like any other, never a trap.
    @Test func extremeSizesNeitherTrapNorChangeTheVerdicts() async throws {
        let verifier = Self.verifier(cache: .init(maximumEntries: .max, maximumBytes: .max, maximumTokenBytes: .max))
        let token = Fixtures.token()
        _ = try await verifier.verify(token)
        #expect(try await verifier.verify(token).subject == "user-1")
        #expect(try Self.statistics(verifier).hits == 1)
        let negative = Self.verifier(cache: .init(maximumEntries: .min, maximumBytes: .min, maximumTokenBytes: .min))
        #expect(negative.plain.cache == nil)
        #expect(try await negative.verify(token).subject == "user-1")
        // Four fifths of the entries are protected, as before, for every count.
        for entries in [1, 4, 5, 7, 10_000, 10_003] {
            #expect(VerifiedTokenCache.protectedCapacity(entries: entries) == entries * 4 / 5)
        }
    }

    /// A provider of bearer tokens, as `OIDCProvider` and the others are one.
    struct Source: BearerTokenSource {
        func bearerVerifier() -> any TokenVerifier {
            IDTokenBearerVerifier(providerID: "oidc.corp", verifier: VerifiedTokenCacheTests.verifier())
        }
    }

    /// The library's knob on a provider's bearer verifier: sized, or off, and the verdicts unchanged.
    @Test func aProvidersBearerVerifierIsSizedOrTurnedOff() async throws {
        let token = Fixtures.token()
        let sized = try #require(Source().bearerVerifier(cache: .init(maximumEntries: 7)) as? IDTokenBearerVerifier)
        #expect(sized.verifier.plain.cache?.configuration.maximumEntries == 7)
        _ = try await sized.verify(token)
        #expect(try await sized.verify(token).subject == "user-1")
        #expect(try Self.statistics(sized.verifier).hits == 1)
        let off = try #require(Source().bearerVerifier(cache: .disabled) as? IDTokenBearerVerifier)
        #expect(off.verifier.plain.cache == nil)
        #expect(try await off.verify(token).subject == "user-1")
    }
}

extension IDToken {
    /// What the cache counts for `token`'s entry.
    fileprivate func bytes(_ token: String) -> Int { VerifiedTokenCache.cost(length: token.utf8.count) }
}

extension VerifiedTokenCache {
    /// Looks `token` up as a verifier would, inserting `entry` on a miss; whether it was a hit.
    fileprivate func use(_ token: String, _ entry: Entry) -> Bool {
        let key = TokenKey(token)
        if self.entry(for: token, key: key) != nil { return true }
        insert(entry, for: token, key: key)
        return false
    }
}
