public import FederateTokens

/// A provider whose refresh tokens the account layer can redeem, so that
/// ``AccountService/accessToken(for:providerID:)`` keeps a kept access token valid
/// (`ProviderCapabilities.tokenRefresh`).
public protocol TokenRefreshingProvider: Sendable {
    /// Redeems `refreshToken`, issued to the identity `subject` (the linked identity's
    /// subject), at the provider's token endpoint: the new access token, its expiry, and the
    /// new refresh token when the provider rotated it (`nil` when it kept the old one).
    ///
    /// Throws `invalid_grant` when the provider refuses the refresh token for good, and
    /// `refreshed_id_token_mismatch` when the answer carries an ID token for another subject
    /// (OpenID Connect Core §12.2): the tokens are then not someone this identity may act as.
    func refreshTokens(_ refreshToken: String, subject: String) async throws(FederateError) -> ProviderTokens
}
