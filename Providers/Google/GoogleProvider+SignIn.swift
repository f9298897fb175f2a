public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

extension GoogleProvider: SignInProvider {
    /// `google.com`.
    public var providerID: String { Self.providerID }

    /// RISC security events, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(events: self, bearerTokens: self, warming: self, tokenRefresh: self)
    }

    /// The authorization request for `request`, with this provider's scopes and Google's parameters.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await authorizationRequest(
            with: try await client(), redirectURI: request.redirectURI, loginHint: request.loginHint, intent: request.intent)
    }

    /// Finishes the code flow (the callback's checks, the code exchange, the ID token verified
    /// with the client's rules, the hosted domain among them; Google's error codes keep their
    /// code and gain guidance), then completes the credential from Google's UserInfo endpoint.
    /// The credential's `grantedScopes` are the scopes the user granted.
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let client = try await client()
        let tokens = try await client.finish(callback, pending: pending)
        return try await client.completingWithUserInfo(try Credential(providerID: Self.providerID, tokens: tokens, rawNonce: pending.nonce))
    }

    /// Revokes the refresh token (or, without one, the access token; Google revokes its pair).
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        guard let token = tokens.refreshToken ?? tokens.accessToken else { return }
        try await revoke(token, client: try await client())
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
