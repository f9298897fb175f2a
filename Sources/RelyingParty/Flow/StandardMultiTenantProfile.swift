package import FederateTokens

/// Standard OpenID Connect at a multi-tenant issuer, nothing else added: for any provider
/// whose discovery gives a `{tenantid}` template (``OpenIDProviderProfile/tenantIssuer``).
package struct StandardMultiTenantProfile: OpenIDProviderProfile {
    /// The template, the tenants accepted and the tenant claim.
    package let tenantIssuer: TenantIssuerRule?

    /// Creates the profile.
    package init(tenantIssuer: TenantIssuerRule) {
        self.tenantIssuer = tenantIssuer
    }
}
