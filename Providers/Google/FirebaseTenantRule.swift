import FederateTokens

/// `firebase.tenant` (Identity Platform multi-tenancy) is one of the expected tenants, as
/// the Admin SDKs' tenant-aware `verifyIdToken` and `verifySessionCookie` require.
///
/// A token of another tenant, or of no tenant (a project-level user) where tenants are
/// expected: `FederateError/Code/tenantNotAllowed`. `firebase` not an object or `tenant`
/// not a string: `FederateError/Code/invalidClaim`.
struct FirebaseTenantRule: ClaimRule {
    /// The tenants accepted (one, for a tenant-aware verifier).
    let tenants: IdentifierSet

    /// Creates the rule; an empty set is `invalid_configuration` (it would accept nothing).
    init(_ tenants: IdentifierSet) throws(FederateError) {
        guard !tenants.isEmpty, !tenants.contains("") else {
            throw FederateError(.invalidConfiguration, "name the Firebase tenants to accept (none empty), or leave tenants unset")
        }
        self.tenants = tenants
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let firebase = token["firebase"] else {
            throw FederateError(.tenantNotAllowed, "the token has no 'firebase' claim, so no tenant")
        }
        guard case .object(let members) = firebase else { throw FederateError(.invalidClaim, "'firebase' is not an object") }
        guard let value = members["tenant"] else {
            throw FederateError(.tenantNotAllowed, "the token belongs to no tenant; a tenant's token is expected")
        }
        guard case .string(let tenant) = value else { throw FederateError(.invalidClaim, "'firebase.tenant' is not a string") }
        guard tenants.contains(tenant) else {
            throw FederateError(.tenantNotAllowed, "the token belongs to another tenant ('\(tenant.prefix(128))')")
        }
    }
}
