package import FederateRelyingParty
package import FederateTokens

/// What Sign in with Apple adds to OpenID Connect, as the relying-party layer's profile:
/// Apple's one issuer, RS256 only, Apple's revocation endpoint, and what Apple's token
/// errors usually mean (`AppleErrorGuidance`). Apple's string booleans are read by
/// `AppleIdentity`, not by the core.
package struct AppleProfile: OpenIDProviderProfile {
    /// Apple's issuer and endpoints.
    package let endpoints: AppleEndpoints

    /// Creates the profile.
    package init(endpoints: AppleEndpoints = .apple) {
        self.endpoints = endpoints
    }

    package func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        IDTokenPolicy(issuers: [endpoints.issuer], audiences: [clientID], allowedAlgorithms: [.rs256])
    }

    package var fallbackRevocationEndpoint: String? { endpoints.revocationURL }

    package func explain(_ error: FederateError) -> FederateError {
        error.withGuidance(from: AppleErrorGuidance.guidance(for:))
    }
}
