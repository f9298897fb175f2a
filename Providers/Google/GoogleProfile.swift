public import FederateRelyingParty
public import FederateTokens

/// What Google adds to OpenID Connect, as the relying-party layer's profile: both issuer
/// spellings, the `azp` allow-list, the hosted-domain rule, `include_granted_scopes`,
/// `access_type=offline` and the `hd` hint, Google's revocation endpoint, and what Google's
/// error codes mean (``GoogleErrorGuidance``).
public struct GoogleProfile: OpenIDProviderProfile {
    /// Google's issuers and endpoints.
    public let endpoints: GoogleEndpoints
    /// Accepted `azp` values; `nil` accepts only the client.
    public let authorizedParties: IdentifierSet?
    /// Accepted Workspace domains (`hd`); empty accepts any account.
    public let hostedDomains: IdentifierSet
    /// Sends `include_granted_scopes=true` (incremental authorization).
    public let includeGrantedScopes: Bool
    /// Sends `access_type=offline` so a web server also gets a refresh token.
    public let offlineAccess: Bool

    /// Creates the profile.
    public init(
        endpoints: GoogleEndpoints = .google, authorizedParties: IdentifierSet? = nil, hostedDomains: IdentifierSet = [],
        includeGrantedScopes: Bool = true, offlineAccess: Bool = false
    ) {
        self.endpoints = endpoints
        self.authorizedParties = authorizedParties
        self.hostedDomains = hostedDomains
        self.includeGrantedScopes = includeGrantedScopes
        self.offlineAccess = offlineAccess
    }

    public func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        let standard = StandardOpenIDProfile.standardPolicy(metadata: metadata, clientID: clientID, authentication: authentication)
        return IDTokenPolicy(
            issuers: endpoints.issuers, audiences: standard.audiences, allowedAlgorithms: standard.allowedAlgorithms,
            authorizedParties: authorizedParties, hmacSecret: standard.hmacSecret, additionalRules: [HostedDomainRule(hostedDomains)])
    }

    public var authorizationParameters: [String: String] {
        var parameters: [String: String] = [:]
        if includeGrantedScopes { parameters["include_granted_scopes"] = "true" }
        if offlineAccess { parameters["access_type"] = "offline" }
        if hostedDomains.count == 1, let domain = hostedDomains.sorted.first { parameters["hd"] = domain }
        return parameters
    }

    public var fallbackRevocationEndpoint: String? { endpoints.revocationURL }

    public func explain(_ error: FederateError) -> FederateError { GoogleErrorGuidance.explain(error) }
}
