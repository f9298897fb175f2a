package import Foundation

/// One provider identity linked to a ``User``: the pair (provider ID, subject) that belongs
/// to at most one user, enforced by the ``AccountStore``.
///
/// Holds the provider's tokens for revocation: the `description` is redacted.
public struct ProviderIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The provider ID (`google.com`, `apple.com`, `oidc.<name>`).
    public var providerID: String
    /// The user's identifier at the provider.
    public var subject: String
    /// The email the provider reported at the last sign-in.
    package var email: String?
    /// Whether the provider said the email was verified.
    package var emailVerified: Bool
    /// The provider's profile at the last sign-in (``ProviderProfile/claims`` is not persisted).
    public var profile: ProviderProfile
    /// When the identity was linked.
    package var linkedAt: Date
    /// The provider's latest tokens (secrets), kept for revocation when the account is deleted.
    package var tokens: ProviderTokens

    /// Creates an identity.
    package init(
        providerID: String, subject: String, email: String?, emailVerified: Bool, profile: ProviderProfile,
        linkedAt: Date, tokens: ProviderTokens = ProviderTokens()
    ) {
        self.providerID = providerID
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.profile = profile
        self.linkedAt = linkedAt
        self.tokens = tokens
    }

    /// The identity a credential describes, linked at `date`.
    package init(credential: Credential, linkedAt date: Date) {
        var profile = credential.profile
        profile.claims = [:]
        self.init(
            providerID: credential.providerID, subject: credential.subject, email: credential.email,
            emailVerified: credential.emailVerified, profile: profile, linkedAt: date, tokens: credential.tokens)
    }

    /// Redacted: no tokens.
    public var description: String { "ProviderIdentity(provider: \(providerID), sub: \(subject), tokens redacted)" }
}
