public import FederateRelyingParty
public import FederateTokens

/// Google's discovery document and key set, fetched ahead of the first sign-in.
extension GoogleProvider: WarmableProvider {
    /// Fetches Google's discovery document and key set into the provider's cache.
    public func warm() async throws(FederateError) {
        try await cache.warm(issuer: endpoints.issuer, profile: profile)
    }

    /// Whether Google's discovery document and key set are in the provider's cache.
    public var isWarm: Bool { cache.isWarm(issuer: endpoints.issuer, profile: profile) }
}
