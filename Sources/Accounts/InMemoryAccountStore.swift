package import FederateTokens
package import Foundation
import Synchronization

/// An ``AccountStore`` in memory, for tests and prototypes. Every method is atomic (one lock),
/// except the returning sign-in: it keeps the protocol's two-step default, which the
/// conformance suite thereby checks.
///
/// Every key — uid, provider ID, subject, session ID, key ID, normalized email — is compared
/// byte for byte (`ExactString`), as the SQL stores compare them: look-alike identifiers
/// never share a row.
public final class InMemoryAccountStore: AccountStorage {
    private struct State {
        var users: [ExactString: User] = [:]
        var owners: [IdentityKey: String] = [:]
        /// Session ID → its user and when its token expires.
        var revokedSessions: [ExactString: (uid: String, expiresAt: Date)] = [:]
        var keptTokens: [IdentityKey: SealedProviderTokens] = [:]
        /// Source uid → the merge whose application hook has not finished.
        var pendingMerges: [ExactString: AccountMerge] = [:]
        var keys: [ExactString: SessionKeyRecord] = [:]
        var endedSessions: [ExactString: (validAfter: Date, expiresAt: Date)] = [:]
        var seenEvents: [ExactString: Date] = [:]
        /// Normalized email → uids, in creation order.
        var emailOwners: [ExactString: [String]] = [:]
        /// `SessionStore.revocationEpoch()`.
        var revocationEpoch: Int64 = 0
        /// Credential ID (its exact bytes) → the passkey.
        var passkeys: [[UInt8]: Passkey] = [:]

        /// The passkeys of user `uid`, oldest first.
        func passkeys(of uid: String) -> [Passkey] {
            passkeys.values.filter { $0.uid.exactlyEquals(uid) }.sorted(by: Passkey.isOlder)
        }

        mutating func index(_ user: User) {
            guard let key = user.uniqueEmailKey else { return }
            emailOwners[ExactString(key), default: []].append(user.uid)
        }

        /// Deletes user `uid` and everything held about them (`UserStore.deleteUser(uid:)`).
        mutating func delete(_ uid: String) -> DeletedUser? {
            guard let user = users.removeValue(forKey: ExactString(uid)) else { return nil }
            revocationEpoch += 1
            unindex(user)
            var kept: [SealedProviderTokens] = []
            for identity in user.identities {
                let key = IdentityKey(providerID: identity.providerID, subject: identity.subject)
                owners[key] = nil
                if let tokens = keptTokens.removeValue(forKey: key) { kept.append(tokens) }
                endedSessions[ExactString(SessionProvider.identityKey(providerID: identity.providerID, subject: identity.subject))] = nil
            }
            revokedSessions = revokedSessions.filter { !$0.value.uid.exactlyEquals(uid) }
            pendingMerges = pendingMerges.filter { !$0.value.targetUID.exactlyEquals(uid) }
            passkeys = passkeys.filter { !$0.value.uid.exactlyEquals(uid) }
            return DeletedUser(user: user, keptTokens: kept)
        }

        mutating func unindex(_ user: User) {
            guard let email = user.uniqueEmailKey else { return }
            let uid = user.uid
            let key = ExactString(email)
            emailOwners[key]?.removeAll { $0.exactlyEquals(uid) }
            if emailOwners[key]?.isEmpty == true { emailOwners[key] = nil }
        }
    }

    fileprivate struct IdentityKey: Hashable {
        let providerID: ExactString
        let subject: ExactString

        init(providerID: String, subject: String) {
            self.providerID = ExactString(providerID)
            self.subject = ExactString(subject)
        }
    }

    private let state = Mutex(State())
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    package let oneAccountPerEmail: Bool

    /// Creates an empty store.
    public init(oneAccountPerEmail: Bool = true) {
        self.oneAccountPerEmail = oneAccountPerEmail
    }

    /// The user with `uid`, with identities.
    package func user(uid: String) async throws(FederateError) -> User? {
        state.withLock { $0.users[ExactString(uid)] }
    }

    /// The user who owns the identity (`providerID`, `subject`).
    package func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        state.withLock { state in
            state.owners[IdentityKey(providerID: providerID, subject: subject)].flatMap { state.users[ExactString($0)] }
        }
    }

    /// The users whose normalized email matches, oldest first.
    package func users(email: String) async throws(FederateError) -> [User] {
        let normalized = User.normalizedEmail(email)
        return state.withLock { state in
            (state.emailOwners[ExactString(normalized)] ?? []).compactMap { state.users[ExactString($0)] }
        }
    }

    /// Inserts a user with its identities; unique violations become account errors.
    package func createUser(_ user: User) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard state.users[ExactString(user.uid)] == nil else { throw FederateError(.accountStoreFailed, "a user with this uid exists") }
            try checkEmail(user, in: state)
            var seen: Set<ExactString> = []
            for identity in user.identities {
                guard state.owners[IdentityKey(providerID: identity.providerID, subject: identity.subject)] == nil else {
                    throw FederateError(.credentialAlreadyInUse, "this \(identity.providerID) identity belongs to another user")
                }
                guard seen.insert(ExactString(identity.providerID)).inserted else {
                    throw FederateError(.providerAlreadyLinked, "two \(identity.providerID) identities on one user")
                }
            }
            state.users[ExactString(user.uid)] = user
            state.index(user)
            for identity in user.identities {
                state.owners[IdentityKey(providerID: identity.providerID, subject: identity.subject)] = user.uid
            }
        }
    }

    /// Changes the fields `update` names (`UserUpdate.applied(to:)`); identities are untouched.
    package func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard let stored = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            let updated = update.applied(to: stored)
            try checkEmail(updated, in: state)
            state.unindex(stored)
            state.index(updated)
            state.users[ExactString(uid)] = updated
            if update.mayEndSessions { state.revocationEpoch += 1 }
        }
    }

    /// Links an identity to a user; the database decides races (`credential_already_in_use`).
    package func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard var user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            let key = IdentityKey(providerID: identity.providerID, subject: identity.subject)
            guard state.owners[key] == nil else {
                throw FederateError(.credentialAlreadyInUse, "this \(identity.providerID) identity belongs to a user")
            }
            guard user.identity(providerID: identity.providerID) == nil else {
                throw FederateError(.providerAlreadyLinked, "the user already has a \(identity.providerID) identity")
            }
            user.identities.append(identity)
            user.isGuest = false
            state.users[ExactString(uid)] = user
            state.owners[key] = uid
        }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    package func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard var user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard
                let index = user.identities.firstIndex(where: {
                    $0.providerID.exactlyEquals(identity.providerID) && $0.subject.exactlyEquals(identity.subject)
                })
            else {
                throw FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity")
            }
            user.identities[index] = identity
            user.lastSignInAt = date
            state.users[ExactString(uid)] = user
        }
    }

    /// Sets the identity's email state.
    package func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        state.withLock { state in
            guard let uid = state.owners[IdentityKey(providerID: providerID, subject: subject)], var user = state.users[ExactString(uid)],
                let index = user.identities.firstIndex(where: {
                    $0.providerID.exactlyEquals(providerID) && $0.subject.exactlyEquals(subject)
                })
            else { return }
            if let email { user.identities[index].email = email }
            user.identities[index].emailVerified = verified
            state.users[ExactString(uid)] = user
        }
    }

    /// Unlinks a provider, refusing the last one (`last_provider`); erases its kept tokens.
    package func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens? {
        try state.withLock { (state: inout State) throws(FederateError) -> SealedProviderTokens? in
            guard var user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard let index = user.identities.firstIndex(where: { $0.providerID.exactlyEquals(providerID) }) else {
                throw FederateError(.noSuchProvider, "the user has no \(providerID) identity")
            }
            guard user.identities.count > 1 || !state.passkeys(of: uid).isEmpty else {
                throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in")
            }
            let removed = user.identities.remove(at: index)
            let key = IdentityKey(providerID: removed.providerID, subject: removed.subject)
            state.owners[key] = nil
            state.users[ExactString(uid)] = user
            return state.keptTokens.removeValue(forKey: key)
        }
    }

    /// Deletes the user and everything held about them; returns what was deleted.
    package func deleteUser(uid: String) async throws(FederateError) -> DeletedUser? {
        state.withLock { state in state.delete(uid) }
    }

    /// Deletes up to `limit` guests created before `date`.
    package func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String] {
        state.withLock { state in
            let expired = state.users.values.filter { $0.isGuest && $0.createdAt < date }.sorted { $0.createdAt < $1.createdAt }.prefix(
                max(0, limit))
            return expired.compactMap { state.delete($0.uid)?.user.uid }
        }
    }

    /// Whether at least `count` guests were created after `date`.
    package func hasGuests(atLeast count: Int, createdAfter date: Date) async throws(FederateError) -> Bool {
        state.withLock { state in state.users.values.lazy.filter { $0.isGuest && $0.createdAt > date }.prefix(count).count >= count }
    }

    /// Merges `sourceUID` into `targetUID` under one lock (`UserStore.mergeUser(_:into:ifIdentity:subject:belongsTo:at:)`).
    package func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge {
        try state.withLock { (state: inout State) throws(FederateError) -> AccountMerge in
            guard !sourceUID.exactlyEquals(targetUID) else {
                throw FederateError(.invalidMergeTicket, "an account cannot be merged into itself")
            }
            guard let source = state.users[ExactString(sourceUID)], var target = state.users[ExactString(targetUID)] else {
                throw FederateError(.userNotFound, "an account of the merge no longer exists")
            }
            guard !source.disabled, !target.disabled else { throw FederateError(.userDisabled, "an account of the merge is disabled") }
            guard state.owners[IdentityKey(providerID: providerID, subject: subject)]?.exactlyEquals(ownerUID) == true else {
                throw FederateError(.credentialAlreadyInUse, "the identity of the merge ticket no longer belongs to the account it named")
            }
            for identity in source.identities where target.identity(providerID: identity.providerID) != nil {
                throw FederateError(.providerAlreadyLinked, "both accounts have a \(identity.providerID) identity: unlink one first")
            }
            for identity in source.identities {
                state.owners[IdentityKey(providerID: identity.providerID, subject: identity.subject)] = targetUID
                target.identities.append(identity)
            }
            let movedPasskeys = state.passkeys(of: sourceUID)
            for passkey in movedPasskeys {
                state.passkeys[passkey.credentialID] = passkey.moved(to: targetUID)
            }
            target.isGuest = target.isGuest && source.identities.isEmpty && movedPasskeys.isEmpty
            var emptied = source
            emptied.identities = []
            state.users[ExactString(sourceUID)] = emptied
            state.users[ExactString(targetUID)] = target
            _ = state.delete(sourceUID)
            let merge = AccountMerge(sourceUID: sourceUID, targetUID: targetUID, mergedAt: date)
            state.pendingMerges[ExactString(sourceUID)] = merge
            return merge
        }
    }

    /// The merges whose hook has not finished, oldest first.
    package func pendingMerges() async throws(FederateError) -> [AccountMerge] {
        state.withLock { $0.pendingMerges.values.sorted { $0.mergedAt < $1.mergedAt } }
    }

    /// Forgets a pending merge.
    package func finishMerge(sourceUID: String) async throws(FederateError) {
        state.withLock { _ = $0.pendingMerges.removeValue(forKey: ExactString(sourceUID)) }
    }

    /// Everything held about `uid`.
    package func accountRecords(uid: String) async throws(FederateError) -> AccountRecords? {
        state.withLock { state in
            guard let user = state.users[ExactString(uid)] else { return nil }
            return AccountRecords(
                user: user,
                keptTokens: user.identities.compactMap { state.keptTokens[IdentityKey(providerID: $0.providerID, subject: $0.subject)] },
                signedOutSessions: state.revokedSessions.filter { $0.value.uid.exactlyEquals(uid) }
                    .map { AccountRecords.SignedOutSession(sessionID: $0.key.value, expiresAt: $0.value.expiresAt) }
                    .sorted { $0.expiresAt < $1.expiresAt },
                pendingMerges: state.pendingMerges.values.filter { $0.targetUID.exactlyEquals(uid) }.sorted { $0.mergedAt < $1.mergedAt },
                passkeys: state.passkeys(of: uid))
        }
    }

    /// Remembers a signed-out session.
    package func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        state.withLock { state in
            if state.revokedSessions[ExactString(sessionID)] == nil { state.revokedSessions[ExactString(sessionID)] = (uid, expiresAt) }
            state.revocationEpoch += 1
        }
    }

    /// Whether a session was signed out.
    package func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        state.withLock { $0.revokedSessions[ExactString(sessionID)] != nil }
    }

    /// Forgets signed-out sessions that expired before `date`.
    package func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        state.withLock { $0.revokedSessions = $0.revokedSessions.filter { $0.value.expiresAt >= date } }
    }

    /// Ends the sessions tied to `key` issued before `validAfter`.
    package func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        state.withLock { state in
            state.endedSessions = state.endedSessions.filter { $0.value.expiresAt >= now }
            let old = state.endedSessions[ExactString(key)]
            state.endedSessions[ExactString(key)] = (
                max(old?.validAfter ?? validAfter, validAfter), max(old?.expiresAt ?? expiresAt, expiresAt)
            )
            state.revocationEpoch += 1
        }
    }

    /// The latest `validAfter` of `keys`.
    package func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        state.withLock { state in keys.compactMap { state.endedSessions[ExactString($0)]?.validAfter }.max() }
    }

    /// Grows with every change that can end a session (`SessionStore.revocationEpoch()`).
    package func revocationEpoch() async throws(FederateError) -> Int64? {
        state.withLock { $0.revocationEpoch }
    }

    /// `true` the first time `id` is seen (until `expiresAt`).
    package func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        state.withLock { state in
            state.seenEvents = state.seenEvents.filter { $0.value >= now }
            guard state.seenEvents[ExactString(id)] == nil else { return false }
            state.seenEvents[ExactString(id)] = expiresAt
            return true
        }
    }

    /// Whether `id` was consumed and has not expired at `now`.
    package func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        state.withLock { state in state.seenEvents[ExactString(id)].map { $0 >= now } ?? false }
    }

    /// Every session-signing key, oldest first.
    package func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        state.withLock { Array($0.keys.values).sorted { $0.createdAt < $1.createdAt } }
    }

    /// Adds a session-signing key.
    package func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        state.withLock { $0.keys[ExactString(key.keyID)] = key }
    }

    /// Removes a session-signing key.
    package func removeSessionKey(keyID: String) async throws(FederateError) {
        state.withLock { _ = $0.keys.removeValue(forKey: ExactString(keyID)) }
    }

    // MARK: ProviderTokenStore

    /// The tokens kept for `uid`'s enabled identity of `providerID`.
    package func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens? {
        state.withLock { state in
            guard let user = state.users[ExactString(uid)], !user.disabled, let identity = user.identity(providerID: providerID) else {
                return nil
            }
            return state.keptTokens[IdentityKey(providerID: identity.providerID, subject: identity.subject)]
        }
    }

    /// Stores new tokens if the version is still `expectedVersion` and the identity exists.
    package func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool {
        state.withLock { state in
            let key = IdentityKey(providerID: tokens.providerID, subject: tokens.subject)
            guard state.owners[key] != nil, state.keptTokens[key]?.version == expectedVersion else { return false }
            var stored = tokens
            stored.version = (expectedVersion ?? 0) + 1
            stored.lease = nil
            stored.needsSignIn = false
            state.keptTokens[key] = stored
            return true
        }
    }

    /// Takes the refresh lease by compare-and-swap on the version.
    package func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool {
        state.withLock { state in
            let key = IdentityKey(providerID: providerID, subject: subject)
            guard var stored = state.keptTokens[key], stored.version == version, !stored.needsSignIn,
                stored.lease.map({ $0.until < now }) ?? true
            else { return false }
            stored.lease = lease
            state.keptTokens[key] = stored
            return true
        }
    }

    /// Writes a refresh's tokens while lease `leaseID` is held.
    package func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool {
        state.withLock { state in
            let key = IdentityKey(providerID: tokens.providerID, subject: tokens.subject)
            guard let stored = state.keptTokens[key], stored.version == tokens.version, stored.lease?.id.exactlyEquals(leaseID) == true
            else {
                return false
            }
            var fresh = tokens
            fresh.version = stored.version + 1
            fresh.lease = nil
            fresh.needsSignIn = false
            state.keptTokens[key] = fresh
            return true
        }
    }

    /// Ends a lease, marking the tokens dead with `needsSignIn`.
    package func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError) {
        state.withLock { state in
            let key = IdentityKey(providerID: providerID, subject: subject)
            guard var stored = state.keptTokens[key], stored.lease?.id.exactlyEquals(leaseID) == true else { return }
            stored.lease = nil
            if needsSignIn { stored.needsSignIn = true }
            state.keptTokens[key] = stored
        }
    }

    /// Records not sealed with `keyID`.
    package func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens] {
        state.withLock { state in
            Array(
                state.keptTokens.values.filter { !$0.keyID.exactlyEquals(keyID) }.sorted { $0.updatedAt < $1.updatedAt }.prefix(
                    max(0, limit)))
        }
    }

    /// Re-seals a record, keeping its version.
    package func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool {
        state.withLock { state in
            let key = IdentityKey(providerID: tokens.providerID, subject: tokens.subject)
            guard var stored = state.keptTokens[key], stored.version == tokens.version, stored.keyID.exactlyEquals(previousKeyID),
                stored.lease.map({ $0.until < now }) ?? true
            else { return false }
            stored.sealed = tokens.sealed
            stored.keyID = tokens.keyID
            state.keptTokens[key] = stored
            return true
        }
    }

    /// Identities holding tokens in the clear.
    package func plaintextProviderTokens(limit: Int) async throws(FederateError) -> [RevocableTokens] {
        state.withLock { state in
            Array(
                state.users.values.flatMap { user in
                    user.identities.filter { !$0.plaintextTokens.isEmpty }.map {
                        RevocableTokens(providerID: $0.providerID, subject: $0.subject, tokens: $0.plaintextTokens)
                    }
                }.prefix(max(0, limit)))
        }
    }

    /// Clears identities' plaintext tokens, storing each sealed record whose identity has none.
    package func clearPlaintextTokens(of identities: [RevocableTokens], keeping sealed: [SealedProviderTokens]) async throws(FederateError)
    {
        state.withLock { state in
            for identity in identities {
                guard let uid = state.owners[IdentityKey(providerID: identity.providerID, subject: identity.subject)],
                    var user = state.users[ExactString(uid)],
                    let index = user.identityIndex(providerID: identity.providerID, subject: identity.subject)
                else { continue }
                user.identities[index].plaintextTokens = ProviderTokens()
                state.users[ExactString(uid)] = user
            }
            for record in sealed {
                let key = IdentityKey(providerID: record.providerID, subject: record.subject)
                guard state.owners[key] != nil, state.keptTokens[key] == nil else { continue }
                var stored = record
                stored.version = 1
                state.keptTokens[key] = stored
            }
        }
    }

    // MARK: PasskeyStore

    /// Links a passkey to its user, who is a guest no more.
    package func addPasskey(_ passkey: Passkey) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard var user = state.users[ExactString(passkey.uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard state.passkeys[passkey.credentialID] == nil else {
                throw FederateError(.credentialAlreadyInUse, "this passkey is registered already")
            }
            state.passkeys[passkey.credentialID] = passkey
            user.isGuest = false
            state.users[ExactString(passkey.uid)] = user
        }
    }

    /// The passkey with this exact credential ID.
    package func passkey(credentialID: [UInt8]) async throws(FederateError) -> Passkey? {
        state.withLock { $0.passkeys[credentialID] }
    }

    /// The user's passkeys, oldest first.
    package func passkeys(uid: String) async throws(FederateError) -> [Passkey] {
        state.withLock { $0.passkeys(of: uid) }
    }

    /// Records a sign-in with a passkey as a compare-and-set on its counter.
    package func recordPasskeySignIn(
        credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backupState: Bool, at date: Date
    ) async throws(FederateError) -> User? {
        state.withLock { state in
            guard let passkey = state.passkeys[credentialID], passkey.signCount == previousSignCount,
                var user = state.users[ExactString(passkey.uid)], !user.disabled
            else { return nil }
            state.passkeys[credentialID] = passkey.used(signCount: signCount, backupState: backupState, at: date)
            user.lastSignInAt = date
            state.users[ExactString(passkey.uid)] = user
            return user
        }
    }

    /// Removes the user's passkey, refusing the last way to sign in (`last_provider`).
    package func removePasskey(credentialID: [UInt8], fromUser uid: String) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard let user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard let passkey = state.passkeys[credentialID], passkey.uid.exactlyEquals(uid) else {
                throw FederateError(.passkeyNotFound, "the user has no passkey with this credential ID")
            }
            guard !user.identities.isEmpty || state.passkeys(of: uid).count > 1 else {
                throw FederateError(.lastProvider, "the passkey is the user's only way to sign in")
            }
            state.passkeys[credentialID] = nil
        }
    }

    private func checkEmail(_ user: User, in state: State) throws(FederateError) {
        guard oneAccountPerEmail, let key = user.uniqueEmailKey else { return }
        if state.emailOwners[ExactString(key)]?.contains(where: { !$0.exactlyEquals(user.uid) }) == true {
            throw FederateError(.emailAlreadyInUse, "the email belongs to another user")
        }
    }
}
