package import Foundation

/// One provider identity linked to a ``User``: the pair (provider ID, subject) that belongs
/// to at most one user, enforced by the ``AccountStore``.
///
/// The `description` is redacted.
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
    /// Tokens (secrets) that a store written by Federate 0.1 kept in the clear on the identity's
    /// row. Nothing writes them any more: ``AccountService/sealPlaintextProviderTokens(batchSize:)``
    /// seals them into the identity's provider-token record and clears them, and a deletion
    /// before that still returns them for revocation.
    package var plaintextTokens: ProviderTokens

    /// Creates an identity.
    package init(
        providerID: String, subject: String, email: String?, emailVerified: Bool, profile: ProviderProfile,
        linkedAt: Date, plaintextTokens: ProviderTokens = ProviderTokens()
    ) {
        self.providerID = providerID
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.profile = profile
        self.linkedAt = linkedAt
        self.plaintextTokens = plaintextTokens
    }

    /// The identity a credential describes, linked at `date`.
    package init(credential: Credential, linkedAt date: Date) {
        var profile = credential.profile
        profile.claims = [:]
        self.init(
            providerID: credential.providerID, subject: credential.subject, email: credential.email,
            emailVerified: credential.emailVerified, profile: profile, linkedAt: date)
    }

    /// Redacted: no tokens.
    public var description: String { "ProviderIdentity(provider: \(providerID), sub: \(subject), tokens redacted)" }
}
