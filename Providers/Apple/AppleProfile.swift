public import FederateRelyingParty
public import FederateTokens

/// What Sign in with Apple adds to OpenID Connect, as the relying-party layer's profile:
/// Apple's one issuer, RS256 only, Apple's revocation endpoint, and what Apple's token
/// errors usually mean (``AppleErrorGuidance``). Apple's string booleans are read by
/// ``AppleIdentity``, not by the core.
public struct AppleProfile: OpenIDProviderProfile {
    /// Apple's issuer and endpoints.
    public let endpoints: AppleEndpoints

    /// Creates the profile.
    public init(endpoints: AppleEndpoints = .apple) {
        self.endpoints = endpoints
    }

    public func policy(metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication) -> IDTokenPolicy {
        IDTokenPolicy(issuers: [endpoints.issuer], audiences: [clientID], allowedAlgorithms: [.rs256])
    }

    public var fallbackRevocationEndpoint: String? { endpoints.revocationURL }

    public func explain(_ error: FederateError) -> FederateError {
        error.withGuidance(from: AppleErrorGuidance.guidance(for:))
    }
}
