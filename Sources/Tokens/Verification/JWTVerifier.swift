import Foundation
import Tracing

/// The one pipeline every JWT Federate accepts goes through: ID tokens, logout tokens,
/// security event tokens, provider notifications, session tokens, signed userinfo and
/// client assertions alike.
///
/// 1. Compact JWS parsing, strict and bounded (`CompactJWS`): three canonical base64url
///    segments, a JSON-object header, `crit` refused, size checked first.
/// 2. The signature (`JWSSignatureVerifier`): the algorithm allow-list bound to the key
///    type, HMAC only with a configured secret, a `kid` selecting exactly one key, one
///    rate-limited refetch on an unknown `kid`.
/// 3. The payload, a JSON object under the same limits.
/// 4. The kind's ``ClaimRules``, in order, at one instant with one clock tolerance.
///
/// Each kind of token is a set of rules (`Docs/Verification.md` has the table);
/// ``IDTokenVerifier`` and the provider modules' verifiers are built on this type.
public struct JWTVerifier: Sendable {
    /// How the signature is checked: allowed algorithms and the HMAC secret, if any.
    package let signature: JWSSignatureVerifier
    /// The claim rules of this kind of token.
    package let rules: ClaimRules
    /// Where keys come from.
    package let keys: any KeySetProvider
    /// The clock skew allowed to the time rules.
    package let clockTolerance: Duration
    /// The time tokens are checked at.
    package let clock: FederateClock
    /// Whether the header must name its key (`kid`).
    package let requiresKeyID: Bool
    /// Size and nesting limits.
    package let limits: JWSLimits
    /// Where this verifier's spans go, when observed (``observed(by:as:)``); `nil` emits nothing.
    package private(set) var observability: Observability?
    /// The counters and timer this verifier records into, when observed.
    package private(set) var metrics: VerificationMetrics?
    /// The headers of tokens this verifier accepted, shared by its copies.
    let headers = JOSEHeaderCache()
    /// The verdicts of tokens this verifier accepted, when it remembers them
    /// (``caching(_:as:observability:)``), shared by its copies.
    private(set) var cache: VerifiedTokenCache?
    /// The rules' explicit-type checks, run on the header before any key is looked up.
    private let typeRules: [ExplicitTypeRule]
    /// ``rules`` without those type checks, run once the signature verified: a type check
    /// already passed on this very header (``checkHeader(of:)`` runs on every path), and
    /// running it again could only pass again.
    private let rulesAfterSignature: ClaimRules
    /// The rules a verified-token cache hit runs again: ``rulesAfterSignature`` less those whose
    /// verdict cannot change for the same bytes (`TimeIndependentClaimRule`).
    private let rulesOnHit: ClaimRules

    /// A verifier applying `rules` to tokens signed with one of `allowedAlgorithms`.
    public init(
        rules: ClaimRules, allowedAlgorithms: Set<JWSAlgorithm>, keys: any KeySetProvider, hmacSecret: HMACSecret? = nil,
        clockTolerance: Duration = .seconds(60), clock: FederateClock = .system, requiresKeyID: Bool = false,
        limits: JWSLimits = .default
    ) {
        self.signature = JWSSignatureVerifier(allowedAlgorithms: allowedAlgorithms, hmacSecret: hmacSecret)
        self.rules = rules
        self.keys = keys
        self.typeRules = rules.rules.compactMap { $0 as? ExplicitTypeRule }
        self.rulesAfterSignature = ClaimRules(rules.rules.filter { !($0 is ExplicitTypeRule) })
        self.rulesOnHit = ClaimRules(rules.rules.filter { !($0 is ExplicitTypeRule) && !($0 is any TimeIndependentClaimRule) })
        self.clockTolerance = clockTolerance
        self.clock = clock
        self.requiresKeyID = requiresKeyID
        self.limits = limits
    }

    /// A verifier for a plain JWT: `typ` absent or `JWT`, `iss` one of `issuers`, `aud`
    /// containing one of `audiences`, `iat` (required unless `requiresIssuedAt` is off) not in
    /// the future, `exp` (required with `requiresExpiry`; not checked without `checksExpiry`),
    /// `nbf` when present.
    public init(
        issuers: IdentifierSet, audiences: IdentifierSet, allowedAlgorithms: Set<JWSAlgorithm>, keys: any KeySetProvider,
        hmacSecret: HMACSecret? = nil, clockTolerance: Duration = .seconds(60), clock: FederateClock = .system,
        requiresKeyID: Bool = false, requiresIssuedAt: Bool = true,
        requiresExpiry: Bool = false, checksExpiry: Bool = true, limits: JWSLimits = .default
    ) {
        var rules: ClaimRules = [
            ExplicitTypeRule.jwt, IssuerRule(issuers), AudienceRule(audiences), IssuedAtRule(required: requiresIssuedAt),
        ]
        if checksExpiry { rules.append(ExpiryRule(required: requiresExpiry)) }
        rules.append(NotBeforeRule())
        self.init(
            rules: rules, allowedAlgorithms: allowedAlgorithms, keys: keys, hmacSecret: hmacSecret, clockTolerance: clockTolerance,
            clock: clock, requiresKeyID: requiresKeyID, limits: limits)
    }

    /// This verifier, counting its verifications as `kind` and tracing them
    /// (`federate.<kind>.verify`) through `observability`.
    package func observed(by observability: Observability, as kind: TokenKind) -> JWTVerifier {
        observed(by: observability, metrics: observability.verifications(of: kind))
    }

    /// This verifier, recording into `metrics` (created once, kept by the caller).
    package func observed(by observability: Observability, metrics: VerificationMetrics) -> JWTVerifier {
        var copy = self
        copy.observability = observability
        copy.metrics = metrics
        return copy
    }

    /// This verifier, remembering the tokens it accepts as `configuration` says, in a cache of its
    /// own (counted as `kind` in `observability`); `configuration` disabled: none.
    package func caching(
        _ configuration: VerifiedTokenCacheConfiguration, as kind: TokenKind, observability: Observability
    ) -> JWTVerifier {
        var copy = self
        copy.cache =
            configuration.isEnabled
            ? VerifiedTokenCache(configuration: configuration, metrics: VerifiedTokenCacheMetrics(kind: kind, observability: observability))
            : nil
        return copy
    }

    /// Verifies `token` at the `clock`'s time. Throws ``FederateError``.
    ///
    /// The token is parsed once; on an unknown `kid` the key provider is asked once for a
    /// refreshed set (rate-limited there) and the same parse is checked again. It runs on
    /// the caller's executor and suspends only when the keys must be fetched: with warm keys
    /// a verification never leaves the executor it started on.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedJWT {
        try await verified(.token(token))
    }

    /// Verifies a token parsed before (a caller read an unverified claim to choose the keys),
    /// held to this verifier's limits too.
    package nonisolated(nonsending) func verify(_ jws: CompactJWS) async throws(FederateError) -> VerifiedJWT {
        try await verified(.parsed(jws))
    }

    /// What an async verification starts from.
    private enum Input {
        case token(String)
        case parsed(CompactJWS)
    }

    /// Verifies `input`, counted and traced when this verifier is observed. The work is called
    /// directly, not through a closure, when nothing observes it.
    private nonisolated(nonsending) func verified(_ input: Input) async throws(FederateError) -> VerifiedJWT {
        guard let observability, let metrics, metrics.isRecording || observability.isTracing else { return try await run(input) }
        let start = clock.instant
        // No `Result` round trip: moving the token through one copied and released every field.
        do throws(FederateError) {
            let verified: VerifiedJWT
            if observability.isTracing {
                verified = try await observability.span(
                    metrics.spanName, attributes: ["federate.token.kind": .string(metrics.kind.rawValue)]
                ) {
                    () async throws(FederateError) in try await run(input)
                }
            } else {
                verified = try await run(input)
            }
            metrics.record(refusal: nil, elapsed: clock.instant - start)
            return verified
        } catch {
            metrics.record(refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }

    private nonisolated(nonsending) func run(_ input: Input) async throws(FederateError) -> VerifiedJWT {
        let jws: CompactJWS
        switch input {
        case .token(let token):
            if let cache, cache.admits(length: token.utf8.count) { return try await verify(token, rememberingIn: cache) }
            jws = try parse(token)
        case .parsed(let parsed):
            try parsed.check(limits)
            try checkHeader(of: parsed)
            jws = parsed
        }
        return try await check(jws)
    }

    /// Verifies `token` through `cache`: a token accepted before, with the key set it verified
    /// with still current, skips the parse, the signature and the rules that depend on its
    /// bytes alone, and is held to every other claim rule again (`exp`, `nbf`, `iat`,
    /// `auth_time`, a rule of the caller's own), at this instant; any other token is verified
    /// in full and, when accepted, remembered.
    /// The verdict is the full pipeline's: the steps skipped are functions of the token's bytes
    /// and the key set alone (which the entry's key and key-set identity pin down).
    private nonisolated(nonsending) func verify(
        _ token: String, rememberingIn cache: VerifiedTokenCache
    ) async throws(FederateError)
        -> VerifiedJWT
    {
        let key = TokenKey(token)
        var current: JSONWebKeySet?
        if let entry = cache.entry(for: token, key: key) {
            // The key set is read only for a token that parsed before, as the full path reads it
            // after the parse: a malformed token is refused as malformed, whatever the keys.
            let keySet = try await keys.keySet()
            current = keySet
            if keySet.identity == entry.keySet {
                cache.countHit()
                do throws(FederateError) {
                    try rulesOnHit.check(entry.token, context: ClaimContext(now: clock.now, clockTolerance: clockTolerance))
                } catch {
                    cache.remove(token, key: key)
                    throw error
                }
                return entry.token
            }
            cache.remove(token, key: key)
        }
        cache.countMiss()
        let jws = try parse(token)
        // The key set read for a stale entry is the one verified with: read once per token.
        let (signature, keySet) = try await keys.verifySignatureWithKeySet(of: jws, with: self.signature, current: current)
        let verified = try accept(jws, signature: signature)
        cache.insert(VerifiedTokenCache.Entry(token: verified, keySet: keySet), for: token, key: key)
        return verified
    }

    /// Parses `token` under this verifier's limits, its header looked up in ``headers``.
    func parse(_ token: String) throws(FederateError) -> CompactJWS {
        let jws = try CompactJWS(parsing: token, limits: limits, headers: headers)
        try checkHeader(of: jws)
        return jws
    }

    /// The header's checks before any key: its kind (`typ`, `ExplicitTypeRule`), then a
    /// `kid` when one is required. It returns nothing: handing the token back copied (retained
    /// and released) each of its fields.
    private func checkHeader(of jws: CompactJWS) throws(FederateError) {
        let header = jws.header
        for index in typeRules.indices { try typeRules[index].check(header) }
        if requiresKeyID, header.keyID?.isEmpty != false {
            throw FederateError(.unknownKey, "the token must name its key ('kid')")
        }
    }

    /// The signature with the provider's keys (refreshed once on an unknown `kid`), then the
    /// payload and the rules.
    private nonisolated(nonsending) func check(_ jws: CompactJWS) async throws(FederateError) -> VerifiedJWT {
        try accept(jws, signature: try await keys.verifySignature(of: jws, with: signature))
    }

    /// The payload, a JSON object under the same limits, and the kind's rules, for a token
    /// whose signature verified; its header is remembered for the next token.
    private func accept(_ jws: CompactJWS, signature: JWSSignatureVerifier.Result) throws(FederateError) -> VerifiedJWT {
        if !jws.headerWasRemembered { jws.withHeaderSegment { headers.remember($0, jws.header) } }
        let token = VerifiedJWT(
            header: jws.header, claims: try jws.claims(limits: limits), algorithm: signature.algorithm, keyID: signature.keyID)
        try rulesAfterSignature.check(token, context: ClaimContext(now: clock.now, clockTolerance: clockTolerance))
        return token
    }
}

extension KeySetProvider {
    /// Verifies `jws`'s signature with these keys; when its `kid` is unknown, asks once for a
    /// refreshed set (rate-limited by the provider) and tries again. Runs on the caller's
    /// executor; suspends only while keys are fetched.
    package nonisolated(nonsending) func verifySignature(
        of jws: CompactJWS, with verifier: JWSSignatureVerifier
    ) async throws(FederateError) -> JWSSignatureVerifier.Result {
        try await verifySignatureWithKeySet(of: jws, with: verifier).result
    }

    /// ``verifySignature(of:with:)``, also naming the key set that verified it
    /// (`JSONWebKeySet.identity`): what a cached verdict is valid with. `current` is the key set
    /// when the caller read it already.
    package nonisolated(nonsending) func verifySignatureWithKeySet(
        of jws: CompactJWS, with verifier: JWSSignatureVerifier, current: JSONWebKeySet? = nil
    ) async throws(FederateError) -> (result: JWSSignatureVerifier.Result, keySet: UInt64) {
        let keySet: JSONWebKeySet
        if let current { keySet = current } else { keySet = try await self.keySet() }
        do throws(FederateError) {
            return (try verifier.verify(jws, keySet: keySet), keySet.identity)
        } catch  where error.code == .unknownKey {
            guard let refreshed = try await refreshedKeySet(after: keySet) else { throw error }
            return (try verifier.verify(jws, keySet: refreshed), refreshed.identity)
        }
    }
}
