extension FederateError.Code {
    /// A DPoP proof (RFC 9449) is malformed, signed wrongly, or does not fit the request it
    /// came with (`htm`, `htu`, `iat`, `ath`, its key); a resource server answers
    /// `WWW-Authenticate: DPoP error="invalid_dpop_proof"`.
    public static let invalidDPoPProof: Self = "invalid_dpop_proof"
    /// The server requires a DPoP nonce and the proof carries none or an old one (RFC 9449
    /// §8, §9): retry once with the nonce of the `DPoP-Nonce` header.
    public static let useDPoPNonce: Self = "use_dpop_nonce"
    /// A DPoP proof's `jti` was seen before within the replay window (RFC 9449 §11.1).
    public static let dpopProofReplayed: Self = "dpop_proof_replayed"
    /// The access token is bound to another key than the one that signed the DPoP proof
    /// (`cnf.jkt`, RFC 9449 §6), or a DPoP-bound token was sent as a bearer token.
    public static let dpopBindingMismatch: Self = "dpop_binding_mismatch"
}
