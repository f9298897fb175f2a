public import FederateTokens

/// Standard OpenID Connect at a multi-tenant issuer, nothing else added: for any provider
/// whose discovery gives a `{tenantid}` template (``OpenIDProviderProfile/tenantIssuer``).
public struct StandardMultiTenantProfile: OpenIDProviderProfile {
    /// The template, the tenants accepted and the tenant claim.
    public let tenantIssuer: TenantIssuerRule?

    /// Creates the profile.
    public init(tenantIssuer: TenantIssuerRule) {
        self.tenantIssuer = tenantIssuer
    }
}
