package import Foundation

/// One account merged into another (``AccountService/merge(ticket:into:)``): the source's
/// identities now belong to the target, and the source is deleted. The application's merge
/// hook gets it, to move its own data from ``sourceUID`` to ``targetUID``.
public struct AccountMerge: Sendable, Hashable {
    /// The account merged and deleted.
    public let sourceUID: String
    /// The account that remains, holding both accounts' identities.
    public let targetUID: String
    /// When the merge was committed.
    package let mergedAt: Date

    /// Creates the value.
    package init(sourceUID: String, targetUID: String, mergedAt: Date) {
        self.sourceUID = sourceUID
        self.targetUID = targetUID
        self.mergedAt = mergedAt
    }
}

/// The application's part of a merge: called just after the store commits a merge, with the
/// two uids, to move the application's own data from ``AccountMerge/sourceUID`` to
/// ``AccountMerge/targetUID``. It must be idempotent: when it throws (or the process stops
/// before it returns), the merge stays pending and ``AccountService/resumePendingMerges()``
/// calls it again.
typealias AccountMergeHook = @Sendable (AccountMerge) async throws -> Void

/// A user deleted by `UserStore.deleteUser(uid:)`, as it was, with the provider tokens kept
/// for its identities (to revoke at the providers).
package struct DeletedUser: Sendable, Hashable {
    /// The user as deleted.
    package let user: User
    /// The kept tokens erased with it.
    package let keptTokens: [SealedProviderTokens]

    /// Creates the value.
    package init(user: User, keptTokens: [SealedProviderTokens]) {
        self.user = user
        self.keptTokens = keptTokens
    }
}

/// Everything an ``AccountStore`` holds about one user (`UserStore.accountRecords(uid:)`).
package struct AccountRecords: Sendable, Hashable {
    /// A signed-out session the store remembers until its token expires.
    package struct SignedOutSession: Sendable, Hashable {
        /// The session ID (`sid`).
        package let sessionID: String
        /// When its token expires (and the record is forgotten).
        package let expiresAt: Date

        /// Creates the value.
        package init(sessionID: String, expiresAt: Date) {
            self.sessionID = sessionID
            self.expiresAt = expiresAt
        }
    }

    /// The user, with identities.
    package let user: User
    /// The provider tokens kept for the user's identities (sealed).
    package let keptTokens: [SealedProviderTokens]
    /// Sessions of the user that were signed out and have not expired.
    package let signedOutSessions: [SignedOutSession]
    /// Merges into this user whose application hook has not finished.
    package let pendingMerges: [AccountMerge]
    /// The user's passkeys, oldest first.
    package let passkeys: [Passkey]

    /// Creates the value.
    package init(
        user: User, keptTokens: [SealedProviderTokens], signedOutSessions: [SignedOutSession], pendingMerges: [AccountMerge],
        passkeys: [Passkey]
    ) {
        self.user = user
        self.keptTokens = keptTokens
        self.signedOutSessions = signedOutSessions
        self.pendingMerges = pendingMerges
        self.passkeys = passkeys
    }
}
