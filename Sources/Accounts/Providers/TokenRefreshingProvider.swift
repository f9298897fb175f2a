public import FederateTokens

/// A provider whose refresh tokens the account layer can redeem, so that
/// ``AccountService/accessToken(for:providerID:)`` keeps a kept access token valid
/// (`ProviderCapabilities.tokenRefresh`).
public protocol TokenRefreshingProvider: Sendable {
    /// Redeems `refreshToken` at the provider's token endpoint: the new access token, its
    /// expiry, and the new refresh token when the provider rotated it (`nil` when it kept the
    /// old one). Throws `invalid_grant` when the provider refuses the refresh token for good.
    func refreshTokens(_ refreshToken: String) async throws(FederateError) -> ProviderTokens
}
