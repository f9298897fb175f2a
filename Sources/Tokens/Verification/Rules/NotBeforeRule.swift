/// `nbf`, when present, is a `NumericDate` not after now, give or take the clock tolerance.
/// Not a NumericDate: ``FederateError/Code/invalidClaim``. Later: ``FederateError/Code/notYetValid``.
struct NotBeforeRule: ClaimRule {
    /// Creates the rule.
    init() {}

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let notBefore = try token.numericDate(.nbf) else { return }
        guard notBefore.secondsSince1970 <= context.secondsSince1970 + context.toleranceSeconds else {
            throw FederateError(
                .notYetValid, "the token is not valid before \(notBefore) (now \(SafeNumber.text(context.secondsSince1970)))")
        }
    }
}
