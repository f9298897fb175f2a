public import FederateAccounts
public import FederateTokens

extension MicrosoftProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at the Microsoft identity platform's token endpoint (it
    /// rotates refresh tokens; `invalid_grant` when refused for good, AADSTS70008 and the like).
    ///
    /// A new ID token in the answer must name `subject` (`refreshed_id_token_mismatch`).
    public func refreshTokens(_ refreshToken: String, subject: String) async throws(FederateError) -> ProviderTokens {
        ProviderTokens(try await client().refresh(refreshToken, subject: subject))
    }
}
