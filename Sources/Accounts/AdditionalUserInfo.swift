/// What the provider said at this sign-in, beyond the stored ``User``.
public struct AdditionalUserInfo: Sendable, Hashable {
    /// The provider that signed the user in.
    package let providerID: String
    /// The provider's profile (with the raw claims).
    package let profile: ProviderProfile
    /// Whether this sign-in created the user.
    public let isNewUser: Bool
    /// The provider's username, when it has one.
    package var username: String? { profile.username }

    /// Creates the information.
    init(providerID: String, profile: ProviderProfile, isNewUser: Bool) {
        self.providerID = providerID
        self.profile = profile
        self.isNewUser = isNewUser
    }
}
