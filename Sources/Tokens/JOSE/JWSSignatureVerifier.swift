/// Checks a ``CompactJWS`` signature against a key set, binding the header `alg` to the key.
///
/// Rules, in order:
/// 1. `alg` must be an algorithm Federate implements (`none` never is) →
///    ``FederateError/Code/unsupportedAlgorithm``;
/// 2. and on ``allowedAlgorithms`` → ``FederateError/Code/disallowedAlgorithm``;
/// 3. HMAC algorithms verify only with the explicitly configured ``hmacSecret``, never with
///    a key from a key set (no RSA-public-key-as-HMAC-secret confusion);
/// 4. with a `kid`, only the key with that `kid` is considered
///    (``FederateError/Code/unknownKey`` when absent; ``FederateError/Code/keyAlgorithmMismatch``
///    when its type, curve, `alg`, `use` or `key_ops` does not fit), compared byte for byte;
///    without a `kid`, every key of the set that fits the algorithm (key type, curve, the
///    key's own `alg`) is tried in the set's document order until one verifies — keys with
///    and without `kid` alike;
/// 5. keys named in the token (`jwk`, `jku`, `x5u`, `x5c`) are never used.
package struct JWSSignatureVerifier: Sendable {
    /// The algorithms a token may use.
    package var allowedAlgorithms: Set<JWSAlgorithm> {
        didSet { allowed = AlgorithmMask(allowedAlgorithms) }
    }
    /// ``allowedAlgorithms`` as bits, asked on every token.
    private var allowed: AlgorithmMask
    /// The secret for HS256/384/512, if the caller configured one.
    package var hmacSecret: HMACSecret?

    /// Creates a verifier.
    package init(allowedAlgorithms: Set<JWSAlgorithm>, hmacSecret: HMACSecret? = nil) {
        self.allowedAlgorithms = allowedAlgorithms
        self.allowed = AlgorithmMask(allowedAlgorithms)
        self.hmacSecret = hmacSecret
    }

    /// What verified the signature.
    package struct Result: Sendable, Hashable {
        /// The algorithm used.
        package let algorithm: JWSAlgorithm
        /// The `kid` of the key that verified it (`nil` for HMAC or a key without `kid`).
        package let keyID: String?
    }

    /// Verifies the signature of `jws` with `keySet`. Throws ``FederateError``.
    package func verify(_ jws: CompactJWS, keySet: JSONWebKeySet) throws(FederateError) -> Result {
        let header = jws.header
        guard let algorithm = header.algorithm else {
            if header.algorithmName.lowercased() == "none" {
                throw FederateError(.unsupportedAlgorithm, "unsigned tokens (alg 'none') are never accepted")
            }
            throw FederateError(.unsupportedAlgorithm, "algorithm '\(header.algorithmName.prefix(32))' is not supported")
        }
        guard allowed.contains(algorithm) else {
            throw FederateError(.disallowedAlgorithm, "algorithm \(algorithm.rawValue) is not allowed by the policy")
        }
        if algorithm.isSymmetric {
            guard let hmacSecret else {
                throw FederateError(
                    .disallowedAlgorithm, "\(algorithm.rawValue) needs an explicitly configured secret; key sets never supply one")
            }
            try hmacSecret.checkLength(for: algorithm)
            let verified = jws.withSigningInput { signingInput in
                jws.withSignature { signature in hmacSecret.matches(signature: signature, signingInput: signingInput, algorithm: algorithm)
                }
            }
            guard verified else { throw FederateError(.invalidSignature, "the signature does not verify") }
            return Result(algorithm: algorithm, keyID: nil)
        }
        if let kid = header.keyID {
            guard let key = keySet.key(withID: kid) else {
                throw FederateError(.unknownKey, "no key with kid '\(kid.prefix(64))' in the key set")
            }
            guard key.permits(algorithm) else {
                throw FederateError(
                    .keyAlgorithmMismatch,
                    "key '\(kid.prefix(64))' (\(key.keyType)\(key.curve.map { " " + $0 } ?? "")) cannot verify \(algorithm.rawValue)")
            }
            guard Self.verify(jws, with: key, algorithm: algorithm) else {
                throw FederateError(.invalidSignature, "the signature does not verify")
            }
            // The key's own `kid` (the same bytes): the verified token shares its string.
            return Result(algorithm: algorithm, keyID: key.keyID)
        }
        var triedAny = false
        for key in keySet.keys where key.permits(algorithm) {
            triedAny = true
            if Self.verify(jws, with: key, algorithm: algorithm) {
                return Result(algorithm: algorithm, keyID: key.keyID)
            }
        }
        guard triedAny else {
            throw FederateError(.unknownKey, "the token has no kid and no key in the set fits \(algorithm.rawValue)")
        }
        throw FederateError(.invalidSignature, "the signature does not verify with any fitting key")
    }

    /// Checks the signature of `jws` with `key`, reading it in place.
    static func verify(_ jws: CompactJWS, with key: JSONWebKey, algorithm: JWSAlgorithm) -> Bool {
        jws.withSigningInput { signingInput in
            jws.withSignature { signature in key.verify(signature: signature, signingInput: signingInput, algorithm: algorithm) }
        }
    }
}
