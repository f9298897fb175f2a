import FederateTokens

/// `tid` is not the personal-accounts tenant: the `organizations` audience admits work and
/// school accounts only, even when it accepts any tenant.
///
/// A personal account's token: `FederateError/Code/tenantNotAllowed`. Absent or
/// ill-formed `tid` is left to `TenantIssuerRule`, which runs first.
struct WorkOrSchoolAccountRule: ClaimRule {
    /// Creates the rule.
    init() {}

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        if let tenant = try token.string("tid"), tenant.exactlyEquals(MicrosoftEndpoints.personalAccountsTenantID) {
            throw FederateError(.tenantNotAllowed, "personal Microsoft accounts are not accepted (organizations only)")
        }
    }
}
