public import FederateAccounts
public import FederateTokens

extension AppleProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at Apple's token endpoint (Apple keeps the refresh token;
    /// `invalid_grant` when it is dead).
    public func refreshTokens(_ refreshToken: String) async throws(FederateError) -> ProviderTokens {
        let tokens = try await refresh(refreshToken, client: try await client())
        return ProviderTokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.expiresAt)
    }
}
