/// `iat` is required and recent: not in the future and not older than ``maximumAge``, both
/// give or take the clock tolerance. DPoP proofs carry no `exp`; a server accepts them only
/// within this window (RFC 9449 §4.3, check 11; §11.1).
///
/// Absent: ``FederateError/Code/missingClaim``. Not a NumericDate:
/// ``FederateError/Code/invalidClaim``. In the future: ``FederateError/Code/issuedInFuture``.
/// Too old: ``FederateError/Code/tokenExpired``.
struct IssuedAtWindowRule: ClaimRule {
    /// How old `iat` may be.
    let maximumAge: Duration
    private let maximumAgeSeconds: Double

    /// Creates the rule.
    init(maximumAge: Duration) {
        self.maximumAge = maximumAge
        self.maximumAgeSeconds = maximumAge.inSeconds
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        let issuedAt = try token.requiredNumericDate(.iat).secondsSince1970
        guard issuedAt <= context.secondsSince1970 + context.toleranceSeconds else {
            throw FederateError(
                .issuedInFuture, "'iat' \(SafeNumber.text(issuedAt)) is in the future (now \(SafeNumber.text(context.secondsSince1970)))")
        }
        guard issuedAt >= context.secondsSince1970 - maximumAgeSeconds - context.toleranceSeconds else {
            throw FederateError(.tokenExpired, "'iat' \(SafeNumber.text(issuedAt)) is older than \(SafeNumber.text(maximumAgeSeconds)) s")
        }
    }
}
