public import FederateTokens

/// A profile for a provider whose issuer is a tenant template (Microsoft Entra's
/// `https://login.microsoftonline.com/{tenantid}/v2.0`): discovery accepts the templated
/// `issuer` for it (`DiscoveryClient/metadata(for:tenantIssuer:)`), and its ID-token policy
/// checks `iss` against each token's own tenant (`TenantIssuerRule`).
///
/// Only a profile that adopts this protocol, with a rule the caller built with an explicit
/// tenant list or `AcceptedTenants.anyTenant`, makes a templated discovery document acceptable.
public protocol MultiTenantProviderProfile: OpenIDProviderProfile {
    /// The template, the tenants accepted and the tenant claim.
    var tenantIssuer: TenantIssuerRule { get }
}

extension MultiTenantProviderProfile {
    /// The standard policy with ``tenantIssuer`` checking `iss`.
    public func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        var policy = StandardOpenIDProfile.standardPolicy(metadata: metadata, clientID: clientID, authentication: authentication)
        policy.tenantIssuer = tenantIssuer
        return policy
    }
}

extension OpenIDProviderProfile {
    /// The tenant rule of a ``MultiTenantProviderProfile``, else `nil`: what discovery is told.
    public var tenantIssuerRule: TenantIssuerRule? { (self as? any MultiTenantProviderProfile)?.tenantIssuer }
}

/// Standard OpenID Connect at a multi-tenant issuer, nothing else added: for any provider
/// whose discovery gives a `{tenantid}` template.
public struct StandardMultiTenantProfile: MultiTenantProviderProfile {
    /// The template, the tenants accepted and the tenant claim.
    public let tenantIssuer: TenantIssuerRule

    /// Creates the profile.
    public init(tenantIssuer: TenantIssuerRule) {
        self.tenantIssuer = tenantIssuer
    }
}
