public import Federate
public import Foundation
import Synchronization

/// A real account store with faults injected: every operation runs on `base`, except that
/// the next ``failNext(_:with:)`` call of the named operation (`update_user`,
/// `consume_event_id`, the names `TracedAccountStore` gives its spans) throws instead, once.
/// For the tests that show a store failure answers 5xx and loses nothing.
public final class FaultInjectingStore: AccountStore, Sendable {
    /// The store that does the work.
    public let base: any AccountStore
    private let faults = Mutex<[String: FederateError]>([:])
    private let calls = Mutex<[String: Int]>([:])

    /// Injects faults into `base`'s operations.
    public init(_ base: any AccountStore) {
        self.base = base
    }

    /// Makes the next call of `operation` throw `error` (default: `store_unavailable`), once.
    public func failNext(_ operation: String, with error: FederateError = FederateError(.storeUnavailable, "injected fault")) {
        faults.withLock { $0[operation] = error }
    }

    /// How many times `operation` was called.
    public func callCount(_ operation: String) -> Int { calls.withLock { $0[operation] ?? 0 } }

    private func injected<T>(_ operation: String, _ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        calls.withLock { $0[operation, default: 0] += 1 }
        if let fault = faults.withLock({ $0.removeValue(forKey: operation) }) { throw fault }
        return try await body()
    }

    public var oneAccountPerEmail: Bool { base.oneAccountPerEmail }

    public func ping() async throws(FederateError) {
        try await injected("ping") { () async throws(FederateError) in try await base.ping() }
    }

    // MARK: UserStore

    public func user(uid: String) async throws(FederateError) -> User? {
        try await injected("user_by_uid") { () async throws(FederateError) in try await base.user(uid: uid) }
    }

    public func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        try await injected("user_by_identity") { () async throws(FederateError) in
            try await base.user(providerID: providerID, subject: subject)
        }
    }

    public func users(email: String) async throws(FederateError) -> [User] {
        try await injected("users_by_email") { () async throws(FederateError) in try await base.users(email: email) }
    }

    public func createUser(_ user: User) async throws(FederateError) {
        try await injected("create_user") { () async throws(FederateError) in try await base.createUser(user) }
    }

    public func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
        try await injected("update_user") { () async throws(FederateError) in try await base.updateUser(uid: uid, update) }
    }

    public func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        try await injected("add_identity") { () async throws(FederateError) in try await base.addIdentity(identity, toUser: uid) }
    }

    public func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        try await injected("record_sign_in") { () async throws(FederateError) in try await base.recordSignIn(identity, uid: uid, at: date) }
    }

    public func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        try await injected("record_returning_sign_in") { () async throws(FederateError) in
            try await base.recordReturningSignIn(latest, at: date)
        }
    }

    public func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        try await injected("update_identity_email") { () async throws(FederateError) in
            try await base.updateIdentityEmail(providerID: providerID, subject: subject, email: email, verified: verified)
        }
    }

    public func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens? {
        try await injected("remove_identity") { () async throws(FederateError) in
            try await base.removeIdentity(providerID: providerID, fromUser: uid)
        }
    }

    public func deleteUser(uid: String) async throws(FederateError) -> DeletedUser? {
        try await injected("delete_user") { () async throws(FederateError) in try await base.deleteUser(uid: uid) }
    }

    public func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String] {
        try await injected("delete_expired_guests") { () async throws(FederateError) in
            try await base.deleteExpiredGuests(createdBefore: date, limit: limit)
        }
    }

    public func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge {
        try await injected("merge_user") { () async throws(FederateError) in
            try await base.mergeUser(sourceUID, into: targetUID, ifIdentity: providerID, subject: subject, belongsTo: ownerUID, at: date)
        }
    }

    public func pendingMerges() async throws(FederateError) -> [AccountMerge] {
        try await injected("pending_merges") { () async throws(FederateError) in try await base.pendingMerges() }
    }

    public func finishMerge(sourceUID: String) async throws(FederateError) {
        try await injected("finish_merge") { () async throws(FederateError) in try await base.finishMerge(sourceUID: sourceUID) }
    }

    public func accountRecords(uid: String) async throws(FederateError) -> AccountRecords? {
        try await injected("account_records") { () async throws(FederateError) in try await base.accountRecords(uid: uid) }
    }

    // MARK: SessionStore

    public func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        try await injected("revoke_session") { () async throws(FederateError) in
            try await base.revokeSession(id: sessionID, uid: uid, expiresAt: expiresAt)
        }
    }

    public func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        try await injected("is_session_revoked") { () async throws(FederateError) in try await base.isSessionRevoked(id: sessionID) }
    }

    public func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        try await injected("remove_revoked_sessions") { () async throws(FederateError) in
            try await base.removeRevokedSessions(expiredBefore: date)
        }
    }

    public func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        try await injected("end_sessions") { () async throws(FederateError) in
            try await base.endSessions(key: key, validAfter: validAfter, expiresAt: expiresAt, now: now)
        }
    }

    public func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        try await injected("sessions_ended") { () async throws(FederateError) in try await base.sessionsEnded(keys: keys) }
    }

    public func revocationEpoch() async throws(FederateError) -> Int64? {
        try await injected("revocation_epoch") { () async throws(FederateError) in try await base.revocationEpoch() }
    }

    public func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await injected("consume_event_id") { () async throws(FederateError) in
            try await base.consumeEventID(id, expiresAt: expiresAt, now: now)
        }
    }

    public func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        try await injected("has_consumed_event_id") { () async throws(FederateError) in try await base.hasConsumedEventID(id, now: now) }
    }

    // MARK: ProviderTokenStore

    public func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens? {
        try await injected("kept_tokens") { () async throws(FederateError) in try await base.keptTokens(uid: uid, providerID: providerID) }
    }

    public func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool {
        try await injected("replace_kept_tokens") { () async throws(FederateError) in
            try await base.replaceKeptTokens(tokens, expectedVersion: expectedVersion)
        }
    }

    public func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool {
        try await injected("claim_token_refresh") { () async throws(FederateError) in
            try await base.claimTokenRefresh(providerID: providerID, subject: subject, version: version, lease: lease, now: now)
        }
    }

    public func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool {
        try await injected("finish_token_refresh") { () async throws(FederateError) in
            try await base.finishTokenRefresh(tokens, leaseID: leaseID)
        }
    }

    public func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError) {
        try await injected("release_token_refresh") { () async throws(FederateError) in
            try await base.releaseTokenRefresh(providerID: providerID, subject: subject, leaseID: leaseID, needsSignIn: needsSignIn)
        }
    }

    public func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens] {
        try await injected("kept_tokens_to_reseal") { () async throws(FederateError) in
            try await base.keptTokens(notSealedWith: keyID, limit: limit)
        }
    }

    public func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool {
        try await injected("reseal_kept_tokens") { () async throws(FederateError) in
            try await base.resealKeptTokens(tokens, previousKeyID: previousKeyID, now: now)
        }
    }

    // MARK: SessionKeyStore

    public func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        try await injected("session_keys") { () async throws(FederateError) in try await base.sessionKeys() }
    }

    public func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        try await injected("add_session_key") { () async throws(FederateError) in try await base.addSessionKey(key) }
    }

    public func removeSessionKey(keyID: String) async throws(FederateError) {
        try await injected("remove_session_key") { () async throws(FederateError) in try await base.removeSessionKey(keyID: keyID) }
    }
}
