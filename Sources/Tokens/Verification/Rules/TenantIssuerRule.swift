/// `iss` of a multi-tenant issuer: the token's tenant claim (`tid`) is a well-formed tenant
/// identifier (``TenantIDFormat``), is accepted (``AcceptedTenants``), and produces the
/// token's `iss` exactly when substituted into the `IssuerTemplate`.
///
/// In an ``IDTokenPolicy`` (``IDTokenPolicy/tenantIssuer``) it takes the place of
/// `IssuerRule`: the policy's `issuers` are not consulted.
///
/// Tenant claim absent: ``FederateError/Code/missingClaim``; not a string, or not of the
/// format (empty, `/`, `..`, a Unicode look-alike, upper case for a GUID):
/// ``FederateError/Code/invalidClaim``; not accepted: ``FederateError/Code/tenantNotAllowed``.
/// `iss` absent: ``FederateError/Code/missingClaim``; not the template's issuer for that
/// tenant: ``FederateError/Code/issuerMismatch``.
public struct TenantIssuerRule: Sendable, Hashable {
    /// The issuer template.
    package let template: IssuerTemplate
    /// The tenants accepted, in canonical form.
    package let tenants: AcceptedTenants
    /// The form of a tenant identifier.
    package let format: TenantIDFormat
    /// The claim that names the tenant (`tid`).
    package let claim: String

    /// Creates the rule. Each listed tenant must have `format` (GUIDs are kept in lower
    /// case); an ill-formed one, or an empty list, is ``FederateError/Code/invalidConfiguration``.
    package init(
        template: IssuerTemplate, tenants: AcceptedTenants, format: TenantIDFormat = .guid, claim: String = "tid"
    ) throws(FederateError) {
        switch tenants {
        case .anyTenant:
            self.tenants = .anyTenant
        case .only(let listed):
            guard !listed.isEmpty else {
                throw FederateError(.invalidConfiguration, "an empty tenant list accepts nothing: list tenants, or say anyTenant")
            }
            var canonical = IdentifierSet([String]())
            for tenant in listed.sorted {
                guard let form = format.canonical(tenant) else {
                    throw FederateError(.invalidConfiguration, "'\(tenant.prefix(80))' is not a well-formed tenant ID")
                }
                canonical.insert(form)
            }
            self.tenants = .only(canonical)
        }
        self.template = template
        self.format = format
        self.claim = claim
    }

    /// Creates the rule from the template as written (see `IssuerTemplate.init(_:)`).
    public init(template: String, tenants: AcceptedTenants, format: TenantIDFormat = .guid, claim: String = "tid") throws(FederateError) {
        try self.init(template: try IssuerTemplate(template), tenants: tenants, format: format, claim: claim)
    }

    /// Checks `token`'s tenant claim and `iss` (``IDTokenPolicy`` runs it in place of the
    /// issuer rule, through `TenantIssuerCheck`).
    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let tenant = try token.string(claim) else {
            throw FederateError(.missingClaim, "required claim '\(claim)' is missing")
        }
        guard format.accepts(tenant) else {
            throw FederateError(.invalidClaim, "'\(claim)' is not a well-formed tenant ID")
        }
        guard tenants.accepts(tenant) else {
            throw FederateError(.tenantNotAllowed, "tenant '\(tenant)' is not accepted")
        }
        guard let issuer = try token.string(.iss) else {
            throw FederateError(.missingClaim, "required claim 'iss' is missing")
        }
        guard issuer.exactlyEquals(template.issuer(forTenant: tenant)) else {
            throw FederateError(.issuerMismatch, "issuer '\(issuer.prefix(200))' is not the issuer of tenant '\(tenant)'")
        }
    }
}

/// A ``TenantIssuerRule`` in a claim-rule pipeline: the rule itself is a policy setting
/// (``IDTokenPolicy/tenantIssuer``), not a rule to add to `additionalRules`, where it would
/// run beside the issuer rule instead of in its place.
struct TenantIssuerCheck: ClaimRule {
    let rule: TenantIssuerRule

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        try rule.check(token, context: context)
    }
}
