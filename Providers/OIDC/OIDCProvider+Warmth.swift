public import FederateRelyingParty
public import FederateTokens

/// The issuer's discovery document and key set, fetched ahead of the first sign-in.
extension OIDCProvider: WarmableProvider {
    /// Fetches the issuer's discovery document and key set into the provider's cache.
    public func warm() async throws(FederateError) {
        try await cache.warm(issuer: issuer, profile: profile)
    }

    /// Whether the issuer's discovery document and key set are in the provider's cache.
    public var isWarm: Bool { cache.isWarm(issuer: issuer, profile: profile) }
}
