public import FederateOIDC
public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

/// Sign-ins finished with Google's UserInfo (Google's error codes keep their code and gain
/// guidance; the credential's `grantedScopes` are the scopes the user granted), and revocation
/// of the refresh token or, without one, the access token (Google revokes its pair).
extension GoogleProvider: OpenIDSignInProvider {
    /// RISC security events, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(events: openIDProvider, bearerTokens: self, warming: openIDProvider, tokenRefresh: openIDProvider)
    }
}

extension GoogleProvider: BearerTokenSource {
    /// Google ID tokens for this client (and the authorized parties and hosted domains
    /// configured), with Google's keys from the provider's cache, fetched on first use.
    public func bearerVerifier() -> any TokenVerifier {
        DeferredTokenVerifier { () throws(FederateError) in
            try GoogleIDTokenVerifier(
                clientIDs: [clientID], authorizedParties: authorizedParties, hostedDomains: hostedDomains,
                keys: try cache.keySet(url: endpoints.keysURL), endpoints: endpoints, clock: cache.clock, observability: cache.observability
            )
        }
    }
}
