public import FederateAccounts
public import FederateTokens

extension OIDCProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at the provider's token endpoint (`invalid_grant` when refused for good).
    public func refreshTokens(_ refreshToken: String) async throws(FederateError) -> ProviderTokens {
        let tokens = try await client().refresh(refreshToken)
        return ProviderTokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.expiresAt)
    }
}
