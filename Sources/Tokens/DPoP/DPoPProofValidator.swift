import Foundation

/// What a server checks of a DPoP request (RFC 9449 §4.3, §7): the proof verified for this
/// request (`DPoPProofVerifier`); when the server requires nonces, the proof's among the
/// accepted ones; when an access token is presented, the proof's key the one the token is
/// bound to (`cnf.jkt`); and the proof used once, in a replay store all instances share.
///
/// ```swift
/// let validator = DPoPProofValidator(replayStore: store, nonces: try DPoPNonces(secret: secret))
/// let proof = try await validator.validate(
///     proof: dpopHeader, method: "GET", uri: "https://api.example.com/orders",
///     accessToken: token, boundTo: try caller.binding.check(presentedWith: .dpop))
/// ```
public struct DPoPProofValidator: Sendable {
    /// How each proof is verified; its clock is the validator's.
    package let verifier: DPoPProofVerifier
    /// Where used proofs are remembered.
    package let replayStore: any ReplayStore
    /// Server nonces, when required; `nil` accepts proofs without one.
    package let nonces: DPoPNonces?

    /// Creates a validator. `verifier` sets the algorithms, the proof's maximum age, the clock
    /// tolerance and the clock.
    public init(verifier: DPoPProofVerifier = DPoPProofVerifier(), replayStore: any ReplayStore, nonces: DPoPNonces? = nil) {
        self.verifier = verifier
        self.replayStore = replayStore
        self.nonces = nonces
    }

    /// The nonce to hand out now (`DPoP-Nonce`), when nonces are on.
    package func currentNonce() -> String? {
        nonces?.current(at: verifier.clock.now)
    }

    /// The algorithms proofs may use, space-separated, ES256 first: the challenge's `algs`.
    package var algorithmsParameter: String {
        verifier.allowedAlgorithms.sorted { ($0 == .es256 ? 0 : 1, $0.rawValue) < ($1 == .es256 ? 0 : 1, $1.rawValue) }
            .map(\.rawValue).joined(separator: " ")
    }

    /// Validates the `DPoP` header `proof` of a `method` request to `uri`. With `accessToken`
    /// the proof must carry its `ath`, and its key must be `boundTo` (the token's `cnf.jkt`;
    /// a token without one is refused: it is not DPoP-bound). Throws
    /// `FederateError.Code.invalidDPoPProof` (no proof, or one that fails),
    /// `FederateError.Code.useDPoPNonce`, `FederateError.Code.dpopBindingMismatch` or
    /// `FederateError.Code.dpopProofReplayed`, and the verifier's codes.
    public func validate(
        proof: String?, method: String, uri: String, accessToken: String? = nil, boundTo thumbprint: String? = nil
    ) async throws(FederateError) -> DPoPProof {
        guard let proof, !proof.isEmpty else { throw FederateError(.invalidDPoPProof, "the request has no DPoP proof") }
        let now = verifier.clock.now
        let verified = try verifier.verify(
            proof, method: method, uri: uri, accessToken: accessToken, acceptedNonces: nonces?.accepted(at: now))
        if accessToken != nil {
            guard let thumbprint else {
                throw FederateError(.dpopBindingMismatch, "the access token is not DPoP-bound (it has no 'cnf.jkt')")
            }
            guard ConstantTime.equals(thumbprint, verified.thumbprint) else {
                throw FederateError(.dpopBindingMismatch, "the access token is bound to another key than the proof's")
            }
        }
        let expiresAt = verified.issuedAt.adding(verifier.replayWindow)
        guard try await replayStore.consume(verified.replayKey, expiresAt: max(expiresAt, now), now: now) else {
            throw FederateError(.dpopProofReplayed, "this DPoP proof was used before")
        }
        return verified
    }
}
