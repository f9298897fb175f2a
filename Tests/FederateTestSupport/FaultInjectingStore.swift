package import Federate
package import Foundation
import Synchronization

/// A real account store with faults injected: every operation runs on `base`, except that
/// the next ``failNext(_:with:)`` call of the named operation (`update_user`,
/// `consume_event_id`, the names `TracedAccountStore` gives its spans) throws instead, once.
/// For the tests that show a store failure answers 5xx and loses nothing.
package final class FaultInjectingStore: AccountStorage, Sendable {
    /// The store that does the work.
    package let base: any AccountStorage
    private let faults = Mutex<[String: FederateError]>([:])
    private let calls = Mutex<[String: Int]>([:])

    /// Injects faults into `base`'s operations.
    package init(_ base: any AccountStorage) {
        self.base = base
    }

    /// Makes the next call of `operation` throw `error` (default: `store_unavailable`), once.
    package func failNext(_ operation: String, with error: FederateError = FederateError(.storeUnavailable, "injected fault")) {
        faults.withLock { $0[operation] = error }
    }

    /// How many times `operation` was called.
    package func callCount(_ operation: String) -> Int { calls.withLock { $0[operation] ?? 0 } }

    private func injected<T>(_ operation: String, _ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        calls.withLock { $0[operation, default: 0] += 1 }
        if let fault = faults.withLock({ $0.removeValue(forKey: operation) }) { throw fault }
        return try await body()
    }

    package var oneAccountPerEmail: Bool { base.oneAccountPerEmail }

    package func ping() async throws(FederateError) {
        try await injected("ping") { () async throws(FederateError) in try await base.ping() }
    }

    // MARK: UserStore

    package func user(uid: String) async throws(FederateError) -> User? {
        try await injected("user_by_uid") { () async throws(FederateError) in try await base.user(uid: uid) }
    }

    package func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        try await injected("user_by_identity") { () async throws(FederateError) in
            try await base.user(providerID: providerID, subject: subject)
        }
    }

    package func users(email: String) async throws(FederateError) -> [User] {
        try await injected("users_by_email") { () async throws(FederateError) in try await base.users(email: email) }
    }

    package func createUser(_ user: User) async throws(FederateError) {
        try await injected("create_user") { () async throws(FederateError) in try await base.createUser(user) }
    }

    package func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
        try await injected("update_user") { () async throws(FederateError) in try await base.updateUser(uid: uid, update) }
    }

    package func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        try await injected("add_identity") { () async throws(FederateError) in try await base.addIdentity(identity, toUser: uid) }
    }

    package func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        try await injected("record_sign_in") { () async throws(FederateError) in try await base.recordSignIn(identity, uid: uid, at: date) }
    }

    package func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        try await injected("record_returning_sign_in") { () async throws(FederateError) in
            try await base.recordReturningSignIn(latest, at: date)
        }
    }

    package func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        try await injected("update_identity_email") { () async throws(FederateError) in
            try await base.updateIdentityEmail(providerID: providerID, subject: subject, email: email, verified: verified)
        }
    }

    package func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens? {
        try await injected("remove_identity") { () async throws(FederateError) in
            try await base.removeIdentity(providerID: providerID, fromUser: uid)
        }
    }

    package func deleteUser(uid: String) async throws(FederateError) -> DeletedUser? {
        try await injected("delete_user") { () async throws(FederateError) in try await base.deleteUser(uid: uid) }
    }

    package func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String] {
        try await injected("delete_expired_guests") { () async throws(FederateError) in
            try await base.deleteExpiredGuests(createdBefore: date, limit: limit)
        }
    }

    package func hasGuests(atLeast count: Int, createdAfter date: Date) async throws(FederateError) -> Bool {
        try await injected("has_guests") { () async throws(FederateError) in
            try await base.hasGuests(atLeast: count, createdAfter: date)
        }
    }

    package func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge {
        try await injected("merge_user") { () async throws(FederateError) in
            try await base.mergeUser(sourceUID, into: targetUID, ifIdentity: providerID, subject: subject, belongsTo: ownerUID, at: date)
        }
    }

    package func pendingMerges() async throws(FederateError) -> [AccountMerge] {
        try await injected("pending_merges") { () async throws(FederateError) in try await base.pendingMerges() }
    }

    package func finishMerge(sourceUID: String) async throws(FederateError) {
        try await injected("finish_merge") { () async throws(FederateError) in try await base.finishMerge(sourceUID: sourceUID) }
    }

    package func accountRecords(uid: String) async throws(FederateError) -> AccountRecords? {
        try await injected("account_records") { () async throws(FederateError) in try await base.accountRecords(uid: uid) }
    }

    // MARK: SessionStore

    package func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        try await injected("revoke_session") { () async throws(FederateError) in
            try await base.revokeSession(id: sessionID, uid: uid, expiresAt: expiresAt)
        }
    }

    package func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        try await injected("is_session_revoked") { () async throws(FederateError) in try await base.isSessionRevoked(id: sessionID) }
    }

    package func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        try await injected("remove_revoked_sessions") { () async throws(FederateError) in
            try await base.removeRevokedSessions(expiredBefore: date)
        }
    }

    package func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        try await injected("end_sessions") { () async throws(FederateError) in
            try await base.endSessions(key: key, validAfter: validAfter, expiresAt: expiresAt, now: now)
        }
    }

    package func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        try await injected("sessions_ended") { () async throws(FederateError) in try await base.sessionsEnded(keys: keys) }
    }

    package func revocationEpoch() async throws(FederateError) -> Int64? {
        try await injected("revocation_epoch") { () async throws(FederateError) in try await base.revocationEpoch() }
    }

    package func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await injected("consume_event_id") { () async throws(FederateError) in
            try await base.consumeEventID(id, expiresAt: expiresAt, now: now)
        }
    }

    package func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        try await injected("has_consumed_event_id") { () async throws(FederateError) in try await base.hasConsumedEventID(id, now: now) }
    }

    // MARK: ProviderTokenStore

    package func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens? {
        try await injected("kept_tokens") { () async throws(FederateError) in try await base.keptTokens(uid: uid, providerID: providerID) }
    }

    package func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool {
        try await injected("replace_kept_tokens") { () async throws(FederateError) in
            try await base.replaceKeptTokens(tokens, expectedVersion: expectedVersion)
        }
    }

    package func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool {
        try await injected("claim_token_refresh") { () async throws(FederateError) in
            try await base.claimTokenRefresh(providerID: providerID, subject: subject, version: version, lease: lease, now: now)
        }
    }

    package func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool {
        try await injected("finish_token_refresh") { () async throws(FederateError) in
            try await base.finishTokenRefresh(tokens, leaseID: leaseID)
        }
    }

    package func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError) {
        try await injected("release_token_refresh") { () async throws(FederateError) in
            try await base.releaseTokenRefresh(providerID: providerID, subject: subject, leaseID: leaseID, needsSignIn: needsSignIn)
        }
    }

    package func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens] {
        try await injected("kept_tokens_to_reseal") { () async throws(FederateError) in
            try await base.keptTokens(notSealedWith: keyID, limit: limit)
        }
    }

    package func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool {
        try await injected("reseal_kept_tokens") { () async throws(FederateError) in
            try await base.resealKeptTokens(tokens, previousKeyID: previousKeyID, now: now)
        }
    }

    package func plaintextProviderTokens(limit: Int) async throws(FederateError) -> [RevocableTokens] {
        try await injected("plaintext_provider_tokens") { () async throws(FederateError) in
            try await base.plaintextProviderTokens(limit: limit)
        }
    }

    package func clearPlaintextTokens(of identities: [RevocableTokens], keeping sealed: [SealedProviderTokens]) async throws(FederateError)
    {
        try await injected("clear_plaintext_tokens") { () async throws(FederateError) in
            try await base.clearPlaintextTokens(of: identities, keeping: sealed)
        }
    }

    // MARK: SessionKeyStore

    package func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        try await injected("session_keys") { () async throws(FederateError) in try await base.sessionKeys() }
    }

    package func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        try await injected("add_session_key") { () async throws(FederateError) in try await base.addSessionKey(key) }
    }

    package func removeSessionKey(keyID: String) async throws(FederateError) {
        try await injected("remove_session_key") { () async throws(FederateError) in try await base.removeSessionKey(keyID: keyID) }
    }

    // MARK: PasskeyStore

    package func addPasskey(_ passkey: Passkey) async throws(FederateError) {
        try await injected("add_passkey") { () async throws(FederateError) in
            try await base.addPasskey(passkey)
        }
    }

    package func passkey(credentialID: [UInt8]) async throws(FederateError) -> Passkey? {
        try await injected("passkey_by_credential_id") { () async throws(FederateError) -> Passkey? in
            try await base.passkey(credentialID: credentialID)
        }
    }

    package func passkeys(uid: String) async throws(FederateError) -> [Passkey] {
        try await injected("passkeys_by_uid") { () async throws(FederateError) -> [Passkey] in
            try await base.passkeys(uid: uid)
        }
    }

    package func recordPasskeySignIn(
        credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backupState: Bool, at date: Date
    ) async throws(FederateError) -> User? {
        try await injected("record_passkey_sign_in") { () async throws(FederateError) -> User? in
            try await base.recordPasskeySignIn(
                credentialID: credentialID, previousSignCount: previousSignCount, signCount: signCount, backupState: backupState, at: date)
        }
    }

    package func removePasskey(credentialID: [UInt8], fromUser uid: String) async throws(FederateError) {
        try await injected("remove_passkey") { () async throws(FederateError) in
            try await base.removePasskey(credentialID: credentialID, fromUser: uid)
        }
    }
}
