/// `at_hash` or `c_hash`, when present, is the left half of the hash of the access token or
/// authorization code issued with the token, with the signature's hash function (OpenID
/// Connect Core §3.1.3.6, §3.3.2.11). Broken: ``FederateError/Code/atHashMismatch`` or
/// ``FederateError/Code/cHashMismatch``.
struct TokenHashRule: ClaimRule {
    /// The claim: `at_hash` or `c_hash`.
    let claim: String
    /// The value it must hash.
    let value: String
    /// The error when it does not.
    let code: FederateError.Code

    /// `at_hash` must match `accessToken`.
    static func accessToken(_ accessToken: String) -> TokenHashRule {
        TokenHashRule(claim: "at_hash", value: accessToken, code: .atHashMismatch)
    }

    /// `c_hash` must match `code`.
    static func authorizationCode(_ code: String) -> TokenHashRule {
        TokenHashRule(claim: "c_hash", value: code, code: .cHashMismatch)
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let hash = try token.string(claim) else { return }
        guard TokenHash.matches(hash, value: value, algorithm: token.algorithm) else {
            throw FederateError(code, "'\(claim)' does not match")
        }
    }
}
