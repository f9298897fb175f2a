package import Foundation

/// Verifies DPoP proofs (RFC 9449 §4.3) on the one claim-rule pipeline: the compact JWS
/// parsed under tight limits; `alg` asymmetric and allowed; `jwk` a public key (a proof
/// carrying private members is refused); the signature verified with that key; then the
/// proof's `ClaimRules.dpopProof(method:target:accessToken:acceptedNonces:maximumAge:)`.
///
/// What it does not do, because it needs state: single use of `jti` (a server's replay
/// store) and the binding of the access token to the key (``DPoPProof/thumbprint`` against
/// the token's `cnf.jkt`). The server types in FederateHummingbird and the dev provider do both.
public struct DPoPProofVerifier: Sendable {
    /// The algorithms a proof may use: every asymmetric one Federate implements, by default.
    package var allowedAlgorithms: Set<JWSAlgorithm> {
        didSet { allowed = AlgorithmMask(allowedAlgorithms) }
    }
    /// ``allowedAlgorithms`` as bits, asked on every proof.
    private var allowed: AlgorithmMask
    /// How old a proof's `iat` may be. Default 60 seconds.
    package var maximumAge: Duration
    /// The clock skew allowed to `iat`, both ways. Default 30 seconds.
    package var clockTolerance: Duration
    /// The time proofs are checked at.
    package var clock: FederateClock
    /// Size and nesting limits: 8 KiB and depth 8 by default (a proof is a few hundred bytes).
    package var limits: JWSLimits

    /// Keys already imported from proof headers, shared by copies of this verifier.
    private let keys = DPoPKeyCache()
    /// Proof headers already parsed (a client's proofs share one), shared by copies.
    private let headers = JOSEHeaderCache()

    /// The members of a JWK that hold private or symmetric key material.
    static let privateKeyMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Creates a verifier.
    public init(
        allowedAlgorithms: Set<JWSAlgorithm> = JWSAlgorithm.asymmetric, maximumAge: Duration = .seconds(60),
        clockTolerance: Duration = .seconds(30), clock: FederateClock = .system,
        limits: JWSLimits = JWSLimits(maxTokenBytes: 8 * 1024, maxJSONDepth: 8)
    ) {
        let asymmetric = allowedAlgorithms.filter { !$0.isSymmetric }
        self.allowedAlgorithms = asymmetric
        self.allowed = AlgorithmMask(asymmetric)
        self.maximumAge = maximumAge
        self.clockTolerance = clockTolerance
        self.clock = clock
        self.limits = limits
    }

    /// How long a proof stays acceptable after its `iat`: how long a replay store must remember its `jti`.
    var replayWindow: Duration { maximumAge + clockTolerance }

    /// Verifies `proof` for a request with `method` to `uri`, presenting `accessToken` (then
    /// `ath` must be its hash), at a server requiring one of `acceptedNonces` (`nil`: no nonce).
    public func verify(
        _ proof: String, method: String, uri: String, accessToken: String? = nil, acceptedNonces: [String]? = nil
    ) throws(FederateError) -> DPoPProof {
        guard let target = HTTPTargetURI(uri) else {
            throw FederateError(.invalidDPoPProof, "the request URI cannot be compared with a proof's 'htu'")
        }
        let jws = try CompactJWS(parsing: proof, limits: limits, headers: headers)
        let header = jws.header
        guard let algorithm = header.algorithm else {
            throw FederateError(
                .unsupportedAlgorithm, "DPoP proof algorithm '\(header.algorithmName.prefix(32))' is not supported (never 'none')")
        }
        guard !algorithm.isSymmetric, allowed.contains(algorithm) else {
            throw FederateError(.disallowedAlgorithm, "DPoP proofs must use an allowed asymmetric algorithm, not \(algorithm.rawValue)")
        }
        let (key, thumbprint) = try jws.withHeaderSegment { (segment) throws(FederateError) in
            try keys.entry(for: segment) { () throws(FederateError) in try Self.importKey(from: header) }
        }.pair
        guard key.permits(algorithm) else {
            throw FederateError(.keyAlgorithmMismatch, "the proof's 'jwk' (\(key.keyType)) cannot verify \(algorithm.rawValue)")
        }
        guard JWSSignatureVerifier.verify(jws, with: key, algorithm: algorithm) else {
            throw FederateError(.invalidSignature, "the DPoP proof's signature does not verify with its 'jwk'")
        }
        if !jws.headerWasRemembered { jws.withHeaderSegment { headers.remember($0, header) } }
        let claims: JSONMembers
        do {
            claims = try jws.payloadObject(limits: limits)
        } catch {
            throw FederateError(.malformedToken, "the DPoP proof's payload is not a JSON object (\(error))")
        }
        let token = VerifiedJWT(header: header, claims: claims, algorithm: algorithm, keyID: header.keyID)
        let rules = ClaimRules.dpopProof(
            method: method, target: target, accessToken: accessToken, acceptedNonces: acceptedNonces, maximumAge: maximumAge)
        try rules.check(token, context: ClaimContext(now: clock.now, clockTolerance: clockTolerance))
        return DPoPProof(
            token: token, key: key, thumbprint: thumbprint, jti: try token.requiredString("jti"),
            issuedAt: try token.requiredNumericDate(.iat).date)
    }

    /// The public key in a proof's header `jwk`, and its thumbprint: refused when absent, when
    /// it holds private key material, or when it is not a key Federate accepts.
    private static func importKey(from header: JOSEHeader) throws(FederateError) -> DPoPKeyCache.Entry {
        guard case .object(let jwk)? = header.members.member(.jwk).map(header.members.value(of:)) else {
            throw FederateError(.invalidDPoPProof, "the proof's header has no 'jwk' object")
        }
        if let member = jwk.keys.sorted().first(where: { privateKeyMembers.contains($0) }) {
            throw FederateError(.invalidDPoPProof, "the proof's 'jwk' holds private key material ('\(member)')")
        }
        let key: JSONWebKey
        do {
            key = try JSONWebKey(jwk: jwk)
        } catch {
            throw FederateError(.invalidDPoPProof, "the proof's 'jwk' is not an acceptable public key: \(error.message)")
        }
        return DPoPKeyCache.Entry(key: key, thumbprint: try JWKThumbprint.sha256(of: jwk))
    }
}

/// A DPoP proof that verified (``DPoPProofVerifier``).
public struct DPoPProof: Sendable {
    /// The proof's header and claims.
    package let token: VerifiedJWT
    /// The public key that signed it (its header's `jwk`).
    package let key: JSONWebKey
    /// The key's RFC 7638 thumbprint: compare with the access token's `cnf.jkt`.
    public let thumbprint: String
    /// `jti`: single use is the server's to enforce.
    package let jti: String
    /// `iat`.
    package let issuedAt: Date

    /// The proof's `nonce`, if any.
    package var nonce: String? { token.claims.stringValue(.nonce) }

    /// The key under which a replay store remembers this proof: the SHA-256 of its
    /// thumbprint and `jti`, so a long `jti` costs the store no more than a short one, and two
    /// keys' `jti`s never collide.
    var replayKey: String { AccessTokenHashRule.hash(of: thumbprint + " " + jti) }
}
