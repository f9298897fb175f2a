/// A DPoP proof carries a nonce the server issued (RFC 9449 §8, §9; §4.3 check 10): one of
/// ``accepted`` (the current nonce and, while it rotates, the previous one), compared in
/// constant time.
///
/// Absent or not accepted: ``FederateError/Code/useDPoPNonce``, so the server answers
/// `use_dpop_nonce` with a fresh `DPoP-Nonce`. Not a string: ``FederateError/Code/invalidClaim``.
struct DPoPNonceRule: ClaimRule {
    /// The nonces accepted now.
    let accepted: [String]

    /// Creates the rule.
    init(accepted: [String]) {
        self.accepted = accepted
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        // Every candidate is compared, so the time taken does not tell which one matched.
        let found = try token.string(.nonce) { nonce in
            var found = false
            for candidate in accepted where ConstantTime.equals(nonce, candidate.utf8) { found = true }
            return found
        }
        guard let found else { throw FederateError(.useDPoPNonce, "the server requires a DPoP nonce") }
        guard found else { throw FederateError(.useDPoPNonce, "the proof's DPoP nonce is not current") }
    }
}
