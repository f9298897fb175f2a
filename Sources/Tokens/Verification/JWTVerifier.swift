import Foundation
import Tracing

/// The one pipeline every JWT Federate accepts goes through: ID tokens, logout tokens,
/// security event tokens, provider notifications, session tokens, signed userinfo and
/// client assertions alike.
///
/// 1. Compact JWS parsing, strict and bounded (``CompactJWS``): three canonical base64url
///    segments, a JSON-object header, `crit` refused, size checked first.
/// 2. The signature (``JWSSignatureVerifier``): the algorithm allow-list bound to the key
///    type, HMAC only with a configured secret, a `kid` selecting exactly one key, one
///    rate-limited refetch on an unknown `kid`.
/// 3. The payload, a JSON object under the same limits.
/// 4. The kind's ``ClaimRules``, in order, at one instant with one clock tolerance.
///
/// Each kind of token is a set of rules (`Docs/Verification.md` has the table);
/// ``IDTokenVerifier`` and the provider modules' verifiers are built on this type.
public struct JWTVerifier: Sendable {
    /// How the signature is checked: allowed algorithms and the HMAC secret, if any.
    public let signature: JWSSignatureVerifier
    /// The claim rules of this kind of token.
    public let rules: ClaimRules
    /// Where keys come from.
    public let keys: any KeySetProvider
    /// The clock skew allowed to the time rules.
    public let clockTolerance: Duration
    /// The time tokens are checked at.
    public let clock: FederateClock
    /// Whether the header must name its key (`kid`).
    public let requiresKeyID: Bool
    /// Size and nesting limits.
    public let limits: JWSLimits
    /// Where this verifier's spans go, when observed (``observed(by:as:)``); `nil` emits nothing.
    public private(set) var observability: Observability?
    /// The counters and timer this verifier records into, when observed.
    public private(set) var metrics: VerificationMetrics?
    /// Headers already parsed, shared by copies of this verifier (same limits).
    private let headers = JOSEHeaderCache()

    /// A verifier applying `rules` to tokens signed with one of `allowedAlgorithms`.
    public init(
        rules: ClaimRules, allowedAlgorithms: Set<JWSAlgorithm>, keys: any KeySetProvider, hmacSecret: HMACSecret? = nil,
        clockTolerance: Duration = .seconds(60), clock: FederateClock = .system, requiresKeyID: Bool = false,
        limits: JWSLimits = .default
    ) {
        self.signature = JWSSignatureVerifier(allowedAlgorithms: allowedAlgorithms, hmacSecret: hmacSecret)
        self.rules = rules
        self.keys = keys
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
        var rules: ClaimRules = [ExplicitTypeRule.jwt, IssuerRule(issuers), AudienceRule(audiences), IssuedAtRule(required: requiresIssuedAt)]
        if checksExpiry { rules.append(ExpiryRule(required: requiresExpiry)) }
        rules.append(NotBeforeRule())
        self.init(
            rules: rules, allowedAlgorithms: allowedAlgorithms, keys: keys, hmacSecret: hmacSecret, clockTolerance: clockTolerance,
            clock: clock, requiresKeyID: requiresKeyID, limits: limits)
    }

    /// This verifier, counting its verifications as `kind` and tracing them
    /// (`federate.<kind>.verify`) through `observability`.
    public func observed(by observability: Observability, as kind: TokenKind) -> JWTVerifier {
        observed(by: observability, metrics: observability.verifications(of: kind))
    }

    /// This verifier, recording into `metrics` (created once, kept by the caller).
    package func observed(by observability: Observability, metrics: VerificationMetrics) -> JWTVerifier {
        var copy = self
        copy.observability = observability
        copy.metrics = metrics
        return copy
    }

    /// Verifies `token` at the ``clock``'s time. Throws ``FederateError``.
    ///
    /// With the keys at hand it runs without suspending (``verifyWithoutSuspending(_:)``):
    /// each async layer cost two executor checks per token. A key the set lacks still takes
    /// the async way, which may refetch.
    public func verify(_ token: String) async throws(FederateError) -> VerifiedJWT {
        if let verified = try verifyWithoutSuspending(token) { return verified }
        guard let observability, let metrics else { return try await verifyUnobserved(token) }
        let start = clock.instant
        // No `Result` round trip: moving the token through one copied and released every field.
        do throws(FederateError) {
            let verified = try await observability.span(metrics.spanName, attributes: ["federate.token.kind": .string(metrics.kind.rawValue)]) {
                () async throws(FederateError) in try await verifyUnobserved(token)
            }
            metrics.record(refusal: nil, elapsed: clock.instant - start)
            return verified
        } catch {
            metrics.record(refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }

    /// Verifies `token` synchronously when everything it needs is at hand: the keys
    /// (``KeySetProvider/cachedKeySet``), no tracing, and a key for the token's `kid` in that
    /// set. Returns `nil` when only ``verify(_:)`` can tell (it may refetch the keys; it records
    /// the outcome), and throws ``FederateError`` for a token the keys at hand refuse, counted
    /// as ``verify(_:)`` counts it.
    public func verifyWithoutSuspending(_ token: String) throws(FederateError) -> VerifiedJWT? {
        guard observability?.isTracing != true, let keySet = keys.cachedKeySet else { return nil }
        let start = clock.instant
        do throws(FederateError) {
            let verified = try verifyUnobserved(token, keySet: keySet)
            metrics?.record(refusal: nil, elapsed: clock.instant - start)
            return verified
        } catch where error.code == .unknownKey {
            return nil  // a refreshed set may have the key: the async way asks, and records the outcome
        } catch {
            metrics?.record(refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }

    /// Verifies `token` with a key set in hand, synchronously (no refetch).
    public func verify(_ token: String, keySet: JSONWebKeySet) throws(FederateError) -> VerifiedJWT {
        guard let observability, let metrics else { return try verifyUnobserved(token, keySet: keySet) }
        let start = clock.instant
        do throws(FederateError) {
            let verified = try observability.span(metrics.spanName, attributes: ["federate.token.kind": .string(metrics.kind.rawValue)]) {
                () throws(FederateError) in try verifyUnobserved(token, keySet: keySet)
            }
            metrics.record(refusal: nil, elapsed: clock.instant - start)
            return verified
        } catch {
            metrics.record(refusal: error.code, elapsed: clock.instant - start)
            throw error
        }
    }

    private func verifyUnobserved(_ token: String) async throws(FederateError) -> VerifiedJWT {
        let jws = try parse(token)
        let result = try await keys.verifySignature(of: jws, with: signature)
        return try check(jws, signature: result)
    }

    private func verifyUnobserved(_ token: String, keySet: JSONWebKeySet) throws(FederateError) -> VerifiedJWT {
        let jws = try parse(token)
        let result = try signature.verify(jws, keySet: keySet)
        return try check(jws, signature: result)
    }

    private func parse(_ token: String) throws(FederateError) -> CompactJWS {
        let jws = try CompactJWS(parsing: token, limits: limits, headers: headers)
        if requiresKeyID, jws.header.keyID?.isEmpty != false {
            throw FederateError(.unknownKey, "the token must name its key ('kid')")
        }
        return jws
    }

    private func check(_ jws: CompactJWS, signature: JWSSignatureVerifier.Result) throws(FederateError) -> VerifiedJWT {
        let claims: [String: JSONValue]
        do {
            claims = try JSONParser(limits: .init(maxBytes: limits.maxTokenBytes, maxDepth: limits.maxJSONDepth)).parseObject(jws.payload)
        } catch {
            throw FederateError(.malformedToken, "the payload is not a JSON object (\(error))")
        }
        let token = VerifiedJWT(header: jws.header, claims: claims, algorithm: signature.algorithm, keyID: signature.keyID)
        try rules.check(token, context: ClaimContext(now: clock.now, clockTolerance: clockTolerance))
        return token
    }
}

extension KeySetProvider {
    /// Verifies `jws`'s signature with these keys; when its `kid` is unknown, asks once for a
    /// refreshed set (rate-limited by the provider) and tries again.
    public func verifySignature(of jws: CompactJWS, with verifier: JWSSignatureVerifier) async throws(FederateError) -> JWSSignatureVerifier.Result {
        let keySet = try await keySet()
        switch Result(catching: { () throws(FederateError) in try verifier.verify(jws, keySet: keySet) }) {
        case .success(let result):
            return result
        case .failure(let error):
            guard error.code == .unknownKey, let refreshed = try await refreshedKeySet(after: keySet) else { throw error }
            return try verifier.verify(jws, keySet: refreshed)
        }
    }
}
