package import FederateRelyingParty
package import FederateTokens

/// What Google adds to OpenID Connect, as the relying-party layer's profile: both issuer
/// spellings, the `azp` allow-list, the hosted-domain rule, `include_granted_scopes`,
/// `access_type=offline` and the `hd` hint, Google's revocation endpoint, and what Google's
/// error codes mean (`GoogleErrorGuidance`).
package struct GoogleProfile: OpenIDProviderProfile {
    /// Google's issuers and endpoints.
    package let endpoints: GoogleEndpoints
    /// Accepted `azp` values; `nil` accepts only the client.
    package let authorizedParties: IdentifierSet?
    /// Accepted Workspace domains (`hd`); empty accepts any account.
    package let hostedDomains: IdentifierSet
    /// Sends `include_granted_scopes=true` (incremental authorization).
    let includeGrantedScopes: Bool
    /// Sends `access_type=offline` so a web server also gets a refresh token.
    let offlineAccess: Bool

    /// Creates the profile.
    package init(
        endpoints: GoogleEndpoints = .google, authorizedParties: IdentifierSet? = nil, hostedDomains: IdentifierSet = [],
        includeGrantedScopes: Bool = true, offlineAccess: Bool = false
    ) {
        self.endpoints = endpoints
        self.authorizedParties = authorizedParties
        self.hostedDomains = hostedDomains
        self.includeGrantedScopes = includeGrantedScopes
        self.offlineAccess = offlineAccess
    }

    package func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        let standard = StandardOpenIDProfile.standardPolicy(metadata: metadata, clientID: clientID, authentication: authentication)
        return IDTokenPolicy(
            issuers: endpoints.issuers, audiences: standard.audiences, allowedAlgorithms: standard.allowedAlgorithms,
            authorizedParties: authorizedParties, hmacSecret: standard.hmacSecret, additionalRules: [HostedDomainRule(hostedDomains)])
    }

    package var authorizationParameters: [String: String] {
        var parameters: [String: String] = [:]
        if includeGrantedScopes { parameters["include_granted_scopes"] = "true" }
        if offlineAccess { parameters["access_type"] = "offline" }
        if hostedDomains.count == 1, let domain = hostedDomains.sorted.first { parameters["hd"] = domain }
        return parameters
    }

    package var fallbackRevocationEndpoint: String? { endpoints.revocationURL }

    package func explain(_ error: FederateError) -> FederateError { GoogleErrorGuidance.explain(error) }
}
