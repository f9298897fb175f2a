/// `exp` is a `NumericDate` and now is before it, give or take the clock tolerance.
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``. Not a NumericDate:
/// ``FederateError/Code/invalidClaim``. Passed: ``FederateError/Code/tokenExpired``.
package struct ExpiryRule: ClaimRule {
    /// Whether `exp` must be present.
    package let required: Bool

    /// Creates the rule.
    package init(required: Bool = true) {
        self.required = required
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let expiresAt = try token.numericDate(.exp) else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'exp' is missing") }
            return
        }
        guard context.secondsSince1970 < expiresAt.secondsSince1970 + context.toleranceSeconds else {
            throw FederateError(.tokenExpired, "the token expired at \(expiresAt) (now \(SafeNumber.text(context.secondsSince1970)))")
        }
    }
}
