package import FederateTokens

/// The unique constraints of the account schema, which decide races between instances,
/// and the account error that each one's violation is. Each store recognizes its driver's
/// violation; the error is the same everywhere.
package enum UniqueConstraint: Sendable, CaseIterable {
    /// One (provider ID, subject) identity belongs to one user.
    case identityProviderSubject
    /// A user has at most one identity of each provider.
    case identityUserProvider
    /// One verified, normalized email belongs to one user (under one account per email).
    case userEmail

    /// The error a violation is.
    package var error: FederateError {
        switch self {
        case .identityProviderSubject: FederateError(.credentialAlreadyInUse, "this identity belongs to another user")
        case .identityUserProvider: FederateError(.providerAlreadyLinked, "the user already has an identity of this provider")
        case .userEmail: FederateError(.emailAlreadyInUse, "the email belongs to another user")
        }
    }
}
