package import Foundation

/// A change to some of a user's own fields, written column by column: every field it does
/// not name keeps what the store holds at that moment. So concurrent changes — a link
/// adopting an email while an administrator disables the user while `revokeSessions` runs —
/// never undo one another, as writing back a whole row read earlier would.
package struct UserUpdate: Sendable, Hashable {
    /// A new email and whether a provider verified it.
    package struct Email: Sendable, Hashable {
        /// The address.
        package var address: String
        /// Whether it is verified.
        package var verified: Bool

        /// Creates an email value.
        init(address: String, verified: Bool) {
            self.address = address
            self.verified = verified
        }
    }

    /// The new email, if it changes.
    package var email: Email?
    /// Whether ``email`` is set only when the user has none (a linked provider's email is
    /// adopted, never overwriting one).
    package var emailOnlyIfNone: Bool
    /// A display name, set only when the user has none.
    package var displayNameIfNone: String?
    /// A photo URL, set only when the user has none.
    package var photoURLIfNone: String?
    /// The new disabled flag, if it changes.
    package var disabled: Bool?
    /// Sessions issued before this instant are revoked. It only ever moves forward: an
    /// earlier value than the stored one changes nothing.
    package var tokensValidAfter: Date?

    /// Creates an update; every field is optional.
    init(
        email: Email? = nil, emailOnlyIfNone: Bool = false, displayNameIfNone: String? = nil, photoURLIfNone: String? = nil,
        disabled: Bool? = nil, tokensValidAfter: Date? = nil
    ) {
        self.email = email
        self.emailOnlyIfNone = emailOnlyIfNone
        self.displayNameIfNone = displayNameIfNone
        self.photoURLIfNone = photoURLIfNone
        self.disabled = disabled
        self.tokensValidAfter = tokensValidAfter
    }

    /// `user` with this update applied: the one statement of what an update does, which
    /// every store's SQL mirrors.
    package func applied(to user: User) -> User {
        var user = user
        if let email, !emailOnlyIfNone || user.email == nil {
            user.email = email.address
            user.emailVerified = email.verified
        }
        if user.displayName == nil, let displayNameIfNone { user.displayName = displayNameIfNone }
        if user.photoURL == nil, let photoURLIfNone { user.photoURL = photoURLIfNone }
        if let disabled { user.disabled = disabled }
        if let tokensValidAfter { user.tokensValidAfter = max(user.tokensValidAfter ?? tokensValidAfter, tokensValidAfter) }
        return user
    }

    /// Whether the change can make a session stop verifying (it disables the user or moves
    /// `tokensValidAfter`): stores advance their `SessionStore.revocationEpoch()` with it.
    package var mayEndSessions: Bool { disabled == true || tokensValidAfter != nil }
}
