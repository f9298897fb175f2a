/// `auth_time` is a ``NumericDate`` not in the future; with a ``maximumAge`` it is required
/// and no older than that many seconds (OpenID Connect Core §3.1.3.7, `max_age`).
///
/// Absent where required: ``FederateError/Code/missingClaim``. Not a NumericDate or in the
/// future: ``FederateError/Code/invalidClaim``. Too old: ``FederateError/Code/authTooOld``.
public struct AuthTimeRule: ClaimRule {
    /// The oldest acceptable authentication, in seconds before now.
    public let maximumAge: Double?
    /// Whether `auth_time` must be present even without a maximum age.
    public let required: Bool

    /// Creates the rule.
    public init(maximumAge: Double? = nil, required: Bool = false) {
        self.maximumAge = maximumAge
        self.required = required
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let authTime = try token.numericDate("auth_time") else {
            if maximumAge != nil { throw FederateError(.missingClaim, "'auth_time' is required when max_age is set") }
            if required { throw FederateError(.missingClaim, "required claim 'auth_time' is missing") }
            return
        }
        guard authTime.secondsSince1970 <= context.now + context.clockTolerance else {
            throw FederateError(.invalidClaim, "'auth_time' is in the future")
        }
        if let maximumAge {
            guard context.now <= authTime.secondsSince1970 + maximumAge + context.clockTolerance else {
                throw FederateError(.authTooOld, "the user authenticated at \(authTime), more than \(SafeNumber.text(maximumAge)) s ago")
            }
        }
    }
}
