public import FederateTokens
public import Foundation
import Synchronization

/// An ``AccountStore`` in memory, for tests and prototypes. Every method is atomic (one lock),
/// except ``UserStore/recordReturningSignIn(_:at:)``: it keeps the protocol's two-step default,
/// which the conformance suite thereby checks.
///
/// Every key — uid, provider ID, subject, session ID, key ID, normalized email — is compared
/// byte for byte (`ExactString`), as the SQL stores compare them: look-alike identifiers
/// never share a row.
public final class InMemoryAccountStore: AccountStore {
    private struct State {
        var users: [ExactString: User] = [:]
        var owners: [IdentityKey: String] = [:]
        var revokedSessions: [ExactString: Date] = [:]
        var keys: [ExactString: SessionKeyRecord] = [:]
        var endedSessions: [ExactString: (validAfter: Date, expiresAt: Date)] = [:]
        var seenEvents: [ExactString: Date] = [:]
        /// Normalized email → uids, in creation order.
        var emailOwners: [ExactString: [String]] = [:]
        /// ``SessionStore/revocationEpoch()``.
        var revocationEpoch: Int64 = 0

        mutating func index(_ user: User) {
            guard let key = user.uniqueEmailKey else { return }
            emailOwners[ExactString(key), default: []].append(user.uid)
        }

        mutating func unindex(_ user: User) {
            guard let email = user.uniqueEmailKey else { return }
            let uid = user.uid
            let key = ExactString(email)
            emailOwners[key]?.removeAll { $0.exactlyEquals(uid) }
            if emailOwners[key]?.isEmpty == true { emailOwners[key] = nil }
        }
    }

    private struct IdentityKey: Hashable {
        let providerID: ExactString
        let subject: ExactString

        init(providerID: String, subject: String) {
            self.providerID = ExactString(providerID)
            self.subject = ExactString(subject)
        }
    }

    private let state = Mutex(State())
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    public let oneAccountPerEmail: Bool

    /// Creates an empty store.
    public init(oneAccountPerEmail: Bool = true) {
        self.oneAccountPerEmail = oneAccountPerEmail
    }

    /// The user with `uid`, with identities.
    public func user(uid: String) async throws(FederateError) -> User? {
        state.withLock { $0.users[ExactString(uid)] }
    }

    /// The user who owns the identity (`providerID`, `subject`).
    public func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        state.withLock { state in
            state.owners[IdentityKey(providerID: providerID, subject: subject)].flatMap { state.users[ExactString($0)] }
        }
    }

    /// The users whose normalized email matches, oldest first.
    public func users(email: String) async throws(FederateError) -> [User] {
        let normalized = User.normalizedEmail(email)
        return state.withLock { state in
            (state.emailOwners[ExactString(normalized)] ?? []).compactMap { state.users[ExactString($0)] }
        }
    }

    /// Inserts a user with its identities; unique violations become account errors.
    public func createUser(_ user: User) async throws(FederateError) {
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

    /// Changes the fields `update` names (``UserUpdate/applied(to:)``); identities are untouched.
    public func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
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
    public func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
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
            state.users[ExactString(uid)] = user
            state.owners[key] = uid
        }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    public func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard var user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard let index = user.identities.firstIndex(where: { $0.providerID.exactlyEquals(identity.providerID) && $0.subject.exactlyEquals(identity.subject) }) else {
                throw FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity")
            }
            user.identities[index] = identity
            user.lastSignInAt = date
            state.users[ExactString(uid)] = user
        }
    }

    /// Sets the identity's email state.
    public func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        state.withLock { state in
            guard let uid = state.owners[IdentityKey(providerID: providerID, subject: subject)], var user = state.users[ExactString(uid)],
                let index = user.identities.firstIndex(where: { $0.providerID.exactlyEquals(providerID) && $0.subject.exactlyEquals(subject) })
            else { return }
            if let email { user.identities[index].email = email }
            user.identities[index].emailVerified = verified
            state.users[ExactString(uid)] = user
        }
    }

    /// Unlinks a provider, refusing the last one (`last_provider`).
    public func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) {
        try state.withLock { (state: inout State) throws(FederateError) in
            guard var user = state.users[ExactString(uid)] else { throw FederateError(.userNotFound, "no user with this uid") }
            guard let index = user.identities.firstIndex(where: { $0.providerID.exactlyEquals(providerID) }) else {
                throw FederateError(.noSuchProvider, "the user has no \(providerID) identity")
            }
            guard user.identities.count > 1 else {
                throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in")
            }
            let removed = user.identities.remove(at: index)
            state.owners[IdentityKey(providerID: removed.providerID, subject: removed.subject)] = nil
            state.users[ExactString(uid)] = user
        }
    }

    /// Deletes the user and their identities; returns what was deleted.
    public func deleteUser(uid: String) async throws(FederateError) -> User? {
        state.withLock { state in
            guard let user = state.users.removeValue(forKey: ExactString(uid)) else { return nil }
            state.revocationEpoch += 1
            state.unindex(user)
            for identity in user.identities {
                state.owners[IdentityKey(providerID: identity.providerID, subject: identity.subject)] = nil
            }
            return user
        }
    }

    /// Remembers a signed-out session.
    public func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        state.withLock { state in
            state.revokedSessions[ExactString(sessionID)] = expiresAt
            state.revocationEpoch += 1
        }
    }

    /// Whether a session was signed out.
    public func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        state.withLock { $0.revokedSessions[ExactString(sessionID)] != nil }
    }

    /// Forgets signed-out sessions that expired before `date`.
    public func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        state.withLock { $0.revokedSessions = $0.revokedSessions.filter { $0.value >= date } }
    }

    /// Ends the sessions tied to `key` issued before `validAfter`.
    public func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        state.withLock { state in
            state.endedSessions = state.endedSessions.filter { $0.value.expiresAt >= now }
            let old = state.endedSessions[ExactString(key)]
            state.endedSessions[ExactString(key)] = (max(old?.validAfter ?? validAfter, validAfter), max(old?.expiresAt ?? expiresAt, expiresAt))
            state.revocationEpoch += 1
        }
    }

    /// The latest `validAfter` of `keys`.
    public func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        state.withLock { state in keys.compactMap { state.endedSessions[ExactString($0)]?.validAfter }.max() }
    }

    /// Grows with every change that can end a session (``SessionStore/revocationEpoch()``).
    public func revocationEpoch() async throws(FederateError) -> Int64? {
        state.withLock { $0.revocationEpoch }
    }

    /// `true` the first time `id` is seen (until `expiresAt`).
    public func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        state.withLock { state in
            state.seenEvents = state.seenEvents.filter { $0.value >= now }
            guard state.seenEvents[ExactString(id)] == nil else { return false }
            state.seenEvents[ExactString(id)] = expiresAt
            return true
        }
    }

    /// Whether `id` was consumed and has not expired at `now`.
    public func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        state.withLock { state in state.seenEvents[ExactString(id)].map { $0 >= now } ?? false }
    }

    /// Every session-signing key, oldest first.
    public func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        state.withLock { Array($0.keys.values).sorted { $0.createdAt < $1.createdAt } }
    }

    /// Adds a session-signing key.
    public func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        state.withLock { $0.keys[ExactString(key.keyID)] = key }
    }

    /// Removes a session-signing key.
    public func removeSessionKey(keyID: String) async throws(FederateError) {
        state.withLock { _ = $0.keys.removeValue(forKey: ExactString(keyID)) }
    }

    private func checkEmail(_ user: User, in state: State) throws(FederateError) {
        guard oneAccountPerEmail, let key = user.uniqueEmailKey else { return }
        if state.emailOwners[ExactString(key)]?.contains(where: { !$0.exactlyEquals(user.uid) }) == true {
            throw FederateError(.emailAlreadyInUse, "the email belongs to another user")
        }
    }
}
