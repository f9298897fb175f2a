public import Foundation

/// Verifies signed JWTs that are not ID tokens — back-channel logout tokens, security event
/// tokens, provider notifications — with the same strict JOSE rules as ``IDTokenVerifier``:
/// the algorithm allow-list bound to the key, a `kid` selecting exactly one key, one
/// rate-limited refetch on an unknown `kid`.
///
/// Claims checked: `iss` one of ``issuers``, `aud` (string or array) containing one of
/// ``audiences``, `iat` a number not in the future (required unless ``requiresIssuedAt`` is
/// off), and `exp` when present (required with ``requiresExpiry``, ignored without
/// ``checksExpiry``), each with
/// ``clockTolerance``. The caller checks what its token type adds (`jti`, `events`, ...).
public struct JWTVerifier: Sendable {
    /// Accepted `iss` values (exact match).
    public var issuers: Set<String>
    /// Accepted `aud` values.
    public var audiences: Set<String>
    /// Accepted algorithms.
    public var allowedAlgorithms: Set<JWSAlgorithm>
    /// The secret for HS* algorithms, when configured.
    public var hmacSecret: HMACSecret?
    /// Seconds of clock skew allowed.
    public var clockTolerance: Double
    /// Whether the header must name its key (`kid`).
    public var requiresKeyID: Bool
    /// Whether `iat` is required.
    public var requiresIssuedAt: Bool
    /// Whether `exp` is required.
    public var requiresExpiry: Bool
    /// Whether a present `exp` is checked (security event tokens do not expire: off for them).
    public var checksExpiry: Bool
    /// Size and nesting limits.
    public var limits: JWSLimits
    /// Where keys come from.
    public let keys: any KeySetProvider

    /// Creates a verifier.
    public init(
        issuers: Set<String>, audiences: Set<String>, allowedAlgorithms: Set<JWSAlgorithm>, keys: any KeySetProvider,
        hmacSecret: HMACSecret? = nil, clockTolerance: Double = 60, requiresKeyID: Bool = false, requiresIssuedAt: Bool = true,
        requiresExpiry: Bool = false, checksExpiry: Bool = true, limits: JWSLimits = .default
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.allowedAlgorithms = allowedAlgorithms
        self.keys = keys
        self.hmacSecret = hmacSecret
        self.clockTolerance = clockTolerance
        self.requiresKeyID = requiresKeyID
        self.requiresIssuedAt = requiresIssuedAt
        self.requiresExpiry = requiresExpiry
        self.checksExpiry = checksExpiry
        self.limits = limits
    }

    /// The same rules as an ID-token policy (issuers, audiences, algorithms, secret, tolerance, limits).
    public init(policy: IDTokenPolicy, keys: any KeySetProvider) {
        self.init(
            issuers: policy.issuers, audiences: policy.audiences, allowedAlgorithms: policy.allowedAlgorithms, keys: keys,
            hmacSecret: policy.hmacSecret, clockTolerance: policy.clockTolerance, limits: policy.limits)
    }

    /// Verifies `token` at `now` (seconds since 1970; default: the current time) and returns
    /// its header and claims. Throws ``FederateError`` with the codes ``IDTokenVerifier`` uses.
    public func verify(_ token: String, now: Double? = nil) async throws -> VerifiedJWT {
        let jws = try CompactJWS(parsing: token, limits: limits)
        if requiresKeyID, jws.header.keyID?.isEmpty != false {
            throw FederateError(.unknownKey, "the token must name its key ('kid')")
        }
        _ = try await keys.verifySignature(of: jws, with: JWSSignatureVerifier(allowedAlgorithms: allowedAlgorithms, hmacSecret: hmacSecret))
        let claims: [String: JSONValue]
        do {
            claims = try JSONParser(limits: .init(maxBytes: limits.maxTokenBytes, maxDepth: limits.maxJSONDepth)).parseObject(jws.payload)
        } catch {
            throw FederateError(.malformedToken, "the token's payload is not a JSON object")
        }
        try validate(claims, now: now ?? Date().timeIntervalSince1970)
        return VerifiedJWT(header: jws.header, claims: claims)
    }

    func validate(_ claims: [String: JSONValue], now: Double) throws(FederateError) {
        guard case .string(let issuer)? = claims["iss"], issuers.contains(issuer) else {
            throw FederateError(.issuerMismatch, "the token's 'iss' is missing or not accepted")
        }
        let audience: [String]
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        case .array(let list)?: audience = list.compactMap(\.stringValue)
        default: throw FederateError(.audienceMismatch, "the token has no 'aud'")
        }
        guard audience.contains(where: audiences.contains) else {
            throw FederateError(.audienceMismatch, "the token is for another audience")
        }
        if let issuedAt = claims["iat"] {
            guard let seconds = issuedAt.doubleValue else { throw FederateError(.invalidClaim, "'iat' is not a number") }
            guard seconds <= now + clockTolerance else { throw FederateError(.issuedInFuture, "the token's 'iat' is in the future") }
        } else if requiresIssuedAt {
            throw FederateError(.missingClaim, "the token has no 'iat'")
        }
        if let expiry = claims["exp"], checksExpiry {
            guard let seconds = expiry.doubleValue else { throw FederateError(.invalidClaim, "'exp' is not a number") }
            guard now < seconds + clockTolerance else { throw FederateError(.tokenExpired, "the token expired") }
        } else if requiresExpiry {
            throw FederateError(.missingClaim, "the token has no 'exp'")
        }
    }
}

/// A JWT whose signature and standard claims ``JWTVerifier`` checked.
public struct VerifiedJWT: Sendable {
    /// The protected header.
    public let header: JOSEHeader
    /// Every claim, as sent.
    public let claims: [String: JSONValue]
}

extension KeySetProvider {
    /// Verifies `jws`'s signature with these keys; when its `kid` is unknown, asks once for a
    /// refreshed set (rate-limited by the provider) and tries again.
    public func verifySignature(of jws: CompactJWS, with verifier: JWSSignatureVerifier) async throws -> JWSSignatureVerifier.Result {
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
