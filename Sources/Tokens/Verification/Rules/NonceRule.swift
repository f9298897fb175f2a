/// `nonce` equals the one this sign-in sent, byte for byte, in constant time.
/// Absent or different: ``FederateError/Code/nonceMismatch``; not a string:
/// ``FederateError/Code/invalidClaim``.
struct NonceRule: ClaimRule {
    /// The nonce sent in the authorization request (or its hash, as the provider echoes it).
    let expected: String

    /// Creates the rule.
    init(expected: String) {
        self.expected = expected
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let matches = try token.string(.nonce, satisfies: { ConstantTime.equals($0, expected.utf8) }) else {
            throw FederateError(.nonceMismatch, "the token has no 'nonce' but one was sent")
        }
        guard matches else {
            throw FederateError(.nonceMismatch, "'nonce' differs from the one sent")
        }
    }
}
