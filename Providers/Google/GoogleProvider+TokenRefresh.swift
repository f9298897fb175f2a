public import FederateAccounts
public import FederateTokens

extension GoogleProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at Google's token endpoint (Google keeps the refresh token;
    /// `invalid_grant` when it is expired, revoked or capped).
    public func refreshTokens(_ refreshToken: String) async throws(FederateError) -> ProviderTokens {
        let tokens = try await refresh(refreshToken, client: try await client())
        return ProviderTokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.expiresAt)
    }
}
