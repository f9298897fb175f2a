/// Provider tokens to revoke after an account is deleted (Apple requires apps to revoke).
///
/// Secrets: the `description` is redacted.
public struct RevocableTokens: Sendable, Hashable, CustomStringConvertible {
    /// The provider that issued them.
    public let providerID: String
    /// The user's subject at that provider.
    package let subject: String
    /// The tokens.
    public let tokens: ProviderTokens

    /// Creates the value.
    package init(providerID: String, subject: String, tokens: ProviderTokens) {
        self.providerID = providerID
        self.subject = subject
        self.tokens = tokens
    }

    /// Redacted.
    public var description: String { "RevocableTokens(provider: \(providerID), \(tokens))" }
}
