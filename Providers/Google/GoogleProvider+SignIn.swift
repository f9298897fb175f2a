public import Federate

extension GoogleProvider: SignInProvider {
    /// `google.com`.
    public var providerID: String { Self.providerID }

    public func beginSignIn(redirectURI: String, intent: AuthorizationIntent) async throws -> BuiltAuthorizationRequest {
        try authorizationRequest(with: try await client(), redirectURI: redirectURI, intent: intent)
    }

    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws -> Credential {
        try await finish(callback, pending: pending, client: try await client()).credential(rawNonce: pending.nonce)
    }

    /// Revokes the refresh token (or, without one, the access token; Google revokes its pair).
    public func revoke(_ tokens: ProviderTokens) async throws {
        guard let token = tokens.refreshToken ?? tokens.accessToken else { return }
        try await revoke(token, client: try await client())
    }
}

extension GoogleSignIn {
    /// The account layer's credential for this sign-in (provider `google.com`).
    public func credential(rawNonce: String? = nil) -> Credential {
        Credential(
            providerID: GoogleProvider.providerID, idToken: idToken, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            rawNonce: rawNonce)
    }
}
