/// A logout token names whom it logs out: a non-empty `sub`, a non-empty `sid`, or both
/// (Back-Channel Logout 1.0 §2.4). Broken: ``FederateError/Code/invalidLogoutToken``; either
/// claim present but not a string: ``FederateError/Code/invalidClaim``.
struct SubjectOrSessionRule: ClaimRule {
    /// Creates the rule.
    init() {}

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        let subject = try token.string(.sub, satisfies: { !$0.isEmpty })
        let session = try token.string(.sid, satisfies: { !$0.isEmpty })
        guard subject == true || session == true else {
            throw FederateError(.invalidLogoutToken, "the logout token has neither 'sub' nor 'sid'")
        }
    }
}
