public import FederateTokens
import Foundation

extension AccountService {
    /// Unlinks the identity of `providerID` from the session's user. Sensitive: requires a
    /// recent sign-in (`requires_recent_login`); `no_such_provider` when not linked;
    /// `last_provider` when it is the user's only way to sign in. The provider tokens kept for
    /// the identity are erased with it and revoked at the provider (RFC 7009). Returns the user after.
    @discardableResult
    public func unlink(_ session: AccountSession, providerID: String) async throws(FederateError) -> User {
        try requireRecentLogin(session)
        if let kept = try await storage.removeIdentity(providerID: providerID, fromUser: session.uid) { await revokeKept([kept]) }
        return try await user(uid: session.uid)
    }

    /// Changes the session's user's email. Sensitive: requires a recent sign-in. The new
    /// email is unverified until a provider vouches for it, so it claims nothing under one
    /// account per email (`User.uniqueEmailKey`) and never conflicts with another account.
    @discardableResult
    public func updateEmail(_ session: AccountSession, to email: String) async throws(FederateError) -> User {
        try requireRecentLogin(session)
        _ = try await activeUser(session.uid)
        try await storage.updateUser(uid: session.uid, UserUpdate(email: .init(address: email, verified: false)))
        return try await user(uid: session.uid)
    }

    /// Deletes the session's user, as ``deleteUser(uid:)`` does. Sensitive: requires a recent
    /// sign-in (a guest's session never is one).
    public func delete(_ session: AccountSession) async throws(FederateError) -> [RevocableTokens] {
        try requireRecentLogin(session)
        return try await deleteUser(uid: session.uid)
    }

    /// Erases user `uid` (administrators, and erasure requests): everything the store holds
    /// about them goes in one atomic step (`UserStore.deleteUser(uid:)`) — the user, their
    /// identities, their sealed provider tokens, their signed-out sessions and pending
    /// merges. The tokens of providers the ``ProviderTokenVault`` keeps for use are revoked at
    /// their providers (RFC 7009) here; returns the other provider tokens the store held, to
    /// revoke at each provider (Apple requires revocation on deletion).
    public func deleteUser(uid: String) async throws(FederateError) -> [RevocableTokens] {
        defer { revocations.invalidate() }
        guard let deleted = try await storage.deleteUser(uid: uid) else {
            throw FederateError(.userNotFound, "no user with this uid")
        }
        revocations.invalidate()
        let others = await revokeKept(deleted.keptTokens)
        return others
            + deleted.user.identities.filter { !$0.plaintextTokens.isEmpty }.map {
                RevocableTokens(providerID: $0.providerID, subject: $0.subject, tokens: $0.plaintextTokens)
            }
    }

    /// Signs the session out: its token stops verifying (with `checkRevoked`). Also
    /// forgets sign-outs of sessions that have expired since (the table stays small).
    public func signOut(_ session: AccountSession) async throws(FederateError) {
        try await storage.revokeSession(id: session.sessionID, uid: session.uid, expiresAt: session.expiresAt)
        revocations.invalidate()
        try await storage.removeRevokedSessions(expiredBefore: clock.now.adding(.zero - configuration.clockTolerance))
    }

    /// Revokes every session of user `uid` issued up to now (`tokensValidAfter`, in whole
    /// seconds like `iat`: sessions issued during the current second are revoked too).
    public func revokeSessions(uid: String) async throws(FederateError) {
        defer { revocations.invalidate() }
        try await storage.updateUser(
            uid: uid, UserUpdate(tokensValidAfter: Date(timeIntervalSince1970: clock.now.timeIntervalSince1970.rounded(.down) + 1)))
    }

    /// Disables user `uid`: sign-in fails with `user_disabled` and sessions stop verifying.
    public func disable(uid: String) async throws(FederateError) {
        try await setDisabled(uid: uid, true)
    }

    /// Enables user `uid` again.
    public func enable(uid: String) async throws(FederateError) {
        try await setDisabled(uid: uid, false)
    }

    private func setDisabled(uid: String, _ disabled: Bool) async throws(FederateError) {
        defer { revocations.invalidate() }
        try await storage.updateUser(uid: uid, UserUpdate(disabled: disabled))
    }
}
