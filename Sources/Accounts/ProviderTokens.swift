package import FederateRelyingParty
public import Foundation

/// OAuth tokens a provider issued for one identity: kept so they can be revoked when the
/// account is deleted (Apple requires it), and, for a provider whose tokens the account layer
/// keeps (``ProviderTokenVault``), to call the provider's APIs on the user's behalf.
///
/// Bearer credentials: the `description` is redacted.
public struct ProviderTokens: Sendable, Hashable, CustomStringConvertible {
    /// The access token, if any.
    public var accessToken: String?
    /// The refresh token, if any.
    public var refreshToken: String?
    /// When the access token expires (the token response's `expires_in`, made absolute), if
    /// the provider said.
    package var accessTokenExpiresAt: Date?

    /// Creates a token pair.
    public init(accessToken: String? = nil, refreshToken: String? = nil, accessTokenExpiresAt: Date? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
    }

    /// The tokens of a token endpoint's answer (a sign-in's or a refresh's).
    package init(_ tokens: TokenSet) {
        self.init(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, accessTokenExpiresAt: tokens.expiresAt)
    }

    /// Whether neither token is present.
    package var isEmpty: Bool { accessToken == nil && refreshToken == nil }

    /// Redacted.
    public var description: String {
        "ProviderTokens(access: \(accessToken == nil ? "no" : "yes"), refresh: \(refreshToken == nil ? "no" : "yes"), redacted)"
    }
}
