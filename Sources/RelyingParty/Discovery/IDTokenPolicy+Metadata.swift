public import FederateTokens

extension IDTokenPolicy {
    /// A policy from discovery: the provider's issuer and its advertised signing algorithms
    /// (`ProviderMetadata/defaultIDTokenAlgorithms`).
    public init(metadata: ProviderMetadata, clientID: String) {
        self.init(issuers: [metadata.issuer], audiences: [clientID], allowedAlgorithms: metadata.defaultIDTokenAlgorithms)
    }
}
