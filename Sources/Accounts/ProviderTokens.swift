/// OAuth tokens a provider issued for one identity, kept so they can be revoked when the
/// account is deleted (Apple requires it).
///
/// Bearer credentials: the `description` is redacted.
public struct ProviderTokens: Sendable, Hashable, CustomStringConvertible {
    /// The access token, if any.
    public var accessToken: String?
    /// The refresh token, if any.
    public var refreshToken: String?

    /// Creates a token pair.
    public init(accessToken: String? = nil, refreshToken: String? = nil) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }

    /// Whether neither token is present.
    public var isEmpty: Bool { accessToken == nil && refreshToken == nil }

    /// Redacted.
    public var description: String {
        "ProviderTokens(access: \(accessToken == nil ? "no" : "yes"), refresh: \(refreshToken == nil ? "no" : "yes"), redacted)"
    }
}
