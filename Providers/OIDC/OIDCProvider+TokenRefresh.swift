public import FederateAccounts
public import FederateTokens

extension OIDCProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at the provider's token endpoint (`invalid_grant` when refused
    /// for good; `refreshed_id_token_mismatch` when a new ID token names another subject).
    public func refreshTokens(_ refreshToken: String, subject: String) async throws(FederateError) -> ProviderTokens {
        ProviderTokens(try await client().refresh(refreshToken, subject: subject))
    }
}
