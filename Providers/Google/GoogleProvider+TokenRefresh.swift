public import FederateAccounts
public import FederateTokens

extension GoogleProvider: TokenRefreshingProvider {
    /// Redeems the refresh token at Google's token endpoint (Google keeps the refresh token;
    /// `invalid_grant` when it is expired, revoked or capped).
    ///
    /// A new ID token in the answer must name `subject` (`refreshed_id_token_mismatch`).
    public func refreshTokens(_ refreshToken: String, subject: String) async throws(FederateError) -> ProviderTokens {
        ProviderTokens(try await client().refresh(refreshToken, subject: subject))
    }
}
