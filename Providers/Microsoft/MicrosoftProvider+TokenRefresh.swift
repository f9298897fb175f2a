public import FederateAccounts
public import FederateTokens

extension MicrosoftProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at the Microsoft identity platform's token endpoint (it
    /// rotates refresh tokens; `invalid_grant` when refused for good, AADSTS70008 and the like).
    public func refreshTokens(_ refreshToken: String) async throws(FederateError) -> ProviderTokens {
        let tokens = try await client().refresh(refreshToken)
        return ProviderTokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.expiresAt)
    }
}
