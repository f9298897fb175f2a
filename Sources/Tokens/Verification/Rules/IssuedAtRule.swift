/// `iat` is a `NumericDate` not in the future, give or take the clock tolerance.
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``. Not a NumericDate:
/// ``FederateError/Code/invalidClaim``. In the future: ``FederateError/Code/issuedInFuture``.
package struct IssuedAtRule: ClaimRule {
    /// Whether `iat` must be present.
    package let required: Bool

    /// Creates the rule.
    package init(required: Bool = true) {
        self.required = required
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let issuedAt = try token.numericDate(.iat) else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'iat' is missing") }
            return
        }
        guard issuedAt.secondsSince1970 <= context.secondsSince1970 + context.toleranceSeconds else {
            throw FederateError(.issuedInFuture, "'iat' \(issuedAt) is in the future (now \(SafeNumber.text(context.secondsSince1970)))")
        }
    }
}
