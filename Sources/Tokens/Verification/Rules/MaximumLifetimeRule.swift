/// `exp` is at most ``maximum`` after `iat` (or, for a token without `iat`, after now): a
/// short-lived credential stays short-lived (RFC 7523 client assertions, Apple's client
/// secrets). Requires `exp`. Too long: ``FederateError/Code/invalidClaim``.
package struct MaximumLifetimeRule: ClaimRule {
    /// The longest accepted lifetime.
    package let maximum: Duration

    /// Creates the rule.
    package init(maximum: Duration) {
        self.maximum = maximum
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        let expiresAt = try token.requiredNumericDate(.exp)
        let start = try token.numericDate(.iat)?.secondsSince1970 ?? context.secondsSince1970
        guard expiresAt.secondsSince1970 - start <= maximum.inSeconds else {
            throw FederateError(.invalidClaim, "the token lives longer than \(maximum)")
        }
    }
}
