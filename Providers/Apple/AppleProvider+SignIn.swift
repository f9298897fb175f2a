public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

extension AppleProvider: SignInProvider {
    /// `apple.com`.
    public var providerID: String { Self.providerID }

    /// Server-to-server notifications, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(events: self, bearerTokens: self, warming: self, tokenRefresh: self)
    }

    /// Apple takes no `login_hint`: the request's is not sent.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await authorizationRequest(with: try await client(), redirectURI: request.redirectURI, intent: request.intent)
    }

    /// Completes from the callback's parameters (Apple's `form_post`, with the one-time `user`).
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let apple = try AppleCallback(response: callback)
        let tokens = try await client().finish(apple.response, pending: pending)
        return try Self.credential(tokens: tokens, user: apple.user, rawNonce: pending.nonce, nonceMode: .raw)
    }

    /// Revokes the refresh token (or the access token), as account deletion should.
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        if let refresh = tokens.refreshToken {
            try await revoke(refresh, hint: "refresh_token", client: try await client())
        } else if let access = tokens.accessToken {
            try await revoke(access, hint: "access_token", client: try await client())
        }
    }
}

extension AppleProvider {
    /// The account layer's credential (provider `apple.com`) from a code exchange's tokens, with
    /// Apple's claims of the verified ID token (``AppleIdentity``; `invalid_token_response`
    /// without an ID token). On the first sign-in its profile carries the name and email from
    /// Apple's one-time `user` JSON — the only time Apple sends the name — so the account layer
    /// stores them. `nonceMode` says what the ID token carries for `rawNonce`
    /// (``AppleNonceMode/sha256Hex`` for a code from Apple's native SDK sent with a hashed nonce).
    /// `email_verified` is read Apple's way (a JSON Boolean or the string `"true"` or `"false"`).
    static func credential(
        tokens: TokenSet, user: AppleUser?, rawNonce: String?, nonceMode: AppleNonceMode
    ) throws(FederateError) -> Credential {
        let idToken = try tokens.requireIDToken()
        let identity = try AppleIdentity(idToken)
        let profile = ProviderProfile(
            displayName: user?.displayName, email: user?.email ?? idToken.email, claims: idToken.claims)
        return Credential(
            providerID: providerID, idToken: idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            rawNonce: rawNonce, nonceClaim: rawNonce.map(nonceMode.expectedClaim(for:)), emailVerified: identity.emailVerified,
            profile: profile, accessTokenExpiresAt: tokens.expiresAt)
    }
}

extension AppleProvider: BearerTokenSource {
    /// Apple ID tokens addressed to the Services ID or one of the bundle IDs, with Apple's
    /// keys from the provider's cache, fetched on first use.
    public func bearerVerifier() -> any TokenVerifier {
        DeferredTokenVerifier { () throws(FederateError) in
            try AppleIDTokenVerifier(
                clientIDs: IdentifierSet(clientIDs), endpoints: endpoints, keys: try cache.keySet(url: endpoints.keysURL),
                clock: cache.clock, observability: cache.observability)
        }
    }
}
