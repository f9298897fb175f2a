/// `auth_time` is a `NumericDate` not in the future; with a ``maximumAge`` it is required
/// and no older than that (OpenID Connect Core §3.1.3.7, `max_age`).
///
/// Absent where required: ``FederateError/Code/missingClaim``. Not a NumericDate or in the
/// future: ``FederateError/Code/invalidClaim``. Too old: ``FederateError/Code/authTooOld``.
struct AuthTimeRule: ClaimRule {
    /// How long before now the oldest acceptable authentication may be.
    let maximumAge: Duration?
    /// Whether `auth_time` must be present even without a maximum age.
    let required: Bool

    /// Creates the rule.
    init(maximumAge: Duration? = nil, required: Bool = false) {
        self.maximumAge = maximumAge
        self.required = required
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let authTime = try token.numericDate(.authTime) else {
            if maximumAge != nil { throw FederateError(.missingClaim, "'auth_time' is required when max_age is set") }
            if required { throw FederateError(.missingClaim, "required claim 'auth_time' is missing") }
            return
        }
        guard authTime.secondsSince1970 <= context.secondsSince1970 + context.toleranceSeconds else {
            throw FederateError(.invalidClaim, "'auth_time' is in the future")
        }
        if let maximumAge {
            guard context.secondsSince1970 <= authTime.secondsSince1970 + maximumAge.inSeconds + context.toleranceSeconds else {
                throw FederateError(.authTooOld, "the user authenticated at \(authTime), more than \(maximumAge) ago")
            }
        }
    }
}
