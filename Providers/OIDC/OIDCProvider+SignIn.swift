public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

extension OIDCProvider: SignInProvider {
    /// The provider ID: the `id` it was created with.
    public var providerID: String { id }

    /// Step-up sign-ins, back-channel logout, RP-initiated logout, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(stepUp: self, events: self, logout: self, bearerTokens: self, warming: self, tokenRefresh: self)
    }

    /// The authorization request for `request`, with this provider's scopes, custom parameters
    /// and ``delivery``.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await authorizationRequest(
            with: try await client(), redirectURI: request.redirectURI, delivery: delivery, loginHint: request.loginHint,
            intent: request.intent)
    }

    /// Finishes the code flow, then completes the credential from UserInfo when the provider
    /// has an endpoint (some release email and profile only there).
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        Credential(
            providerID: id, signIn: try await finish(callback, pending: pending), rawNonce: pending.nonce, nonceClaim: nil,
            emailVerified: trustsEmailVerified ? nil : false, profile: nil)
    }

    /// Revokes the refresh token (or, without one, the access token) when the provider has a
    /// revocation endpoint; without one there is nothing to revoke.
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        let client = try await client()
        guard client.revocationEndpoint ?? client.metadata.revocationEndpoint != nil else { return }
        if let refresh = tokens.refreshToken {
            try await client.revoke(refresh, hint: "refresh_token")
        } else if let access = tokens.accessToken {
            try await client.revoke(access, hint: "access_token")
        }
    }

    /// A credential from an ID token obtained elsewhere — an app's own sign-in sent to the
    /// server — verified like any other: this provider's issuer, this client in `aud`, the
    /// advertised algorithms, `nonce` when `rawNonce` is given, `at_hash` when the access
    /// token is given and the token has one. Its email is verified as a sign-in's is.
    public func credential(idToken: String, rawNonce: String? = nil, accessToken: String? = nil) async throws(FederateError) -> Credential {
        let client = try await client()
        let verified = try await client.idTokenVerifier
            .verify(idToken, expecting: IDTokenExpectations(nonce: rawNonce, accessToken: accessToken))
        return Credential(
            providerID: id, idToken: verified, accessToken: accessToken, rawNonce: rawNonce,
            emailVerified: trustsEmailVerified ? nil : false)
    }
}

extension OIDCProvider: BearerTokenSource {
    /// This provider's ID tokens for its client, verified like a sign-in's (issuer,
    /// audience, algorithms, the profile's rules) with keys from the provider's cache, discovered on first use.
    public func bearerVerifier() -> any TokenVerifier {
        DeferredTokenVerifier { () async throws(FederateError) in
            IDTokenBearerVerifier(providerID: id, verifier: try await client().idTokenVerifier)
        }
    }
}
