public import FederateTokens

extension OpenIDClient {
    /// A verifier of the provider's RFC 9068 access tokens for the API `resource`: its issuer,
    /// its keys (this client's key set, shared), the algorithms its ID tokens may use, and
    /// this client's clock and observability.
    public func accessTokenVerifier(resource: String, providerID: String? = nil) -> AccessTokenVerifier {
        AccessTokenVerifier(
            policy: AccessTokenPolicy(
                issuers: [metadata.issuer], resources: [resource], allowedAlgorithms: policy.allowedAlgorithms.filter { !$0.isSymmetric },
                clockTolerance: policy.clockTolerance),
            keys: keys, providerID: providerID, clock: clock, observability: observability)
    }

    /// An introspection client at the provider's `introspection_endpoint` for the API
    /// `resource`, authenticating as this client unless `clientID` and `authentication` say otherwise.
    package func introspectionClient(
        resource: String?, providerID: String? = nil, clientID: String? = nil, authentication: ClientAuthentication? = nil,
        cachePolicy: IntrospectionCachePolicy = IntrospectionCachePolicy()
    ) throws(FederateError) -> IntrospectionClient {
        try IntrospectionClient(
            metadata: metadata, clientID: clientID ?? self.clientID, authentication: authentication ?? self.authentication,
            resource: resource,
            providerID: providerID, cachePolicy: cachePolicy, clockTolerance: policy.clockTolerance, httpClient: httpClient, clock: clock)
    }
}
