/// `exp` is at most ``seconds`` after `iat` (or, for a token without `iat`, after now): a
/// short-lived credential stays short-lived (RFC 7523 client assertions, Apple's client
/// secrets). Requires `exp`. Too long: ``FederateError/Code/invalidClaim``.
public struct MaximumLifetimeRule: ClaimRule {
    /// The longest accepted lifetime, in seconds.
    public let seconds: Double

    /// Creates the rule.
    public init(seconds: Double) {
        self.seconds = seconds
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        let expiresAt = try token.requiredNumericDate("exp")
        let start = try token.numericDate("iat")?.secondsSince1970 ?? context.now
        guard expiresAt.secondsSince1970 - start <= seconds else {
            throw FederateError(.invalidClaim, "the token lives longer than \(SafeNumber.text(seconds)) s")
        }
    }
}
