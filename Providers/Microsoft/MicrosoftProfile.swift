package import FederateRelyingParty
package import FederateTokens

/// What Microsoft Entra ID adds to OpenID Connect, as the relying-party layer's profile: the
/// `{tenantid}` issuer template checked against each token's `tid`
/// (`TenantIssuerRule`, so discovery at `/common` and `/organizations` is accepted), the
/// organisations-only rule, and what Entra's `AADSTS` errors mean.
package struct MicrosoftProfile: OpenIDProviderProfile {
    /// The issuer template, the tenants accepted, `tid`.
    package let tenantIssuer: TenantIssuerRule?
    /// Who may sign in.
    package let audience: MicrosoftAudience

    /// Creates the profile for `audience` at `endpoints`. Throws `invalid_configuration` for a
    /// tenant list with an ill-formed or no tenant ID, or personal accounts listed for `organizations`.
    package init(audience: MicrosoftAudience, endpoints: MicrosoftEndpoints = .microsoft) throws(FederateError) {
        if audience.refusesPersonalAccounts, case .only(let listed) = audience.acceptedTenants,
            listed.contains(MicrosoftEndpoints.personalAccountsTenantID)
        {
            throw FederateError(.invalidConfiguration, "the organizations audience refuses personal accounts: use common to accept them")
        }
        self.tenantIssuer = try TenantIssuerRule(template: endpoints.issuerTemplate, tenants: audience.acceptedTenants, format: .guid)
        self.audience = audience
    }

    package func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        var policy = StandardOpenIDProfile.standardPolicy(metadata: metadata, clientID: clientID, authentication: authentication)
        policy.tenantIssuer = tenantIssuer
        if audience.refusesPersonalAccounts { policy.additionalRules.append(WorkOrSchoolAccountRule()) }
        return policy
    }

    package func explain(_ error: FederateError) -> FederateError {
        switch error.code {
        case .invalidClient:
            return error.withGuidance(
                "check the client secret under Certificates & secrets in the app registration; secrets expire (AADSTS7000215, AADSTS7000222)"
            )
        case .invalidGrant:
            return error.withGuidance(
                "the code or refresh token expired or was revoked (AADSTS70008, AADSTS700082, AADSTS50173): sign the user in again")
        case .tenantNotAllowed:
            return error.withGuidance("the user's organisation (tid) is not in this application's tenant list")
        case .unauthorizedClient:
            return error.withGuidance(
                "the app registration's supported account types do not include this authority (AADSTS50194, AADSTS700016)")
        default:
            return error
        }
    }
}
