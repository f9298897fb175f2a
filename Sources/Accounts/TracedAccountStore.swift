import FederateTokens
import Foundation
import Tracing

/// An ``AccountStore`` that runs each operation of another in a span named
/// `federate.store.<operation>` (`federate.store.create_user`, `federate.store.record_sign_in`,
/// …), with the store's type and the outcome code as attributes and nothing else: no uid,
/// subject, email or token. ``AccountService`` wraps its store in one when tracing is on, so
/// each store operation is one span, whatever SQL it runs.
struct TracedAccountStore: AccountStorage {
    /// The store that does the work.
    let base: any AccountStorage
    /// Where the spans go.
    let observability: Observability
    private let storeName: String

    /// Traces `base`'s operations through `observability`.
    init(_ base: any AccountStorage, observability: Observability) {
        self.base = base
        self.observability = observability
        self.storeName = String(describing: type(of: base))
    }

    private func traced<T>(_ operation: String, _ body: () async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await observability.span("federate.store.\(operation)", kind: .client, attributes: ["federate.store": .string(storeName)], body)
    }

    var oneAccountPerEmail: Bool { base.oneAccountPerEmail }

    func ping() async throws(FederateError) {
        try await traced("ping") { () async throws(FederateError) in try await base.ping() }
    }

    // MARK: UserStore

    func user(uid: String) async throws(FederateError) -> User? {
        try await traced("user_by_uid") { () async throws(FederateError) in try await base.user(uid: uid) }
    }

    func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        try await traced("user_by_identity") { () async throws(FederateError) in
            try await base.user(providerID: providerID, subject: subject)
        }
    }

    func users(email: String) async throws(FederateError) -> [User] {
        try await traced("users_by_email") { () async throws(FederateError) in try await base.users(email: email) }
    }

    func createUser(_ user: User) async throws(FederateError) {
        try await traced("create_user") { () async throws(FederateError) in try await base.createUser(user) }
    }

    func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
        try await traced("update_user") { () async throws(FederateError) in try await base.updateUser(uid: uid, update) }
    }

    func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        try await traced("add_identity") { () async throws(FederateError) in try await base.addIdentity(identity, toUser: uid) }
    }

    func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        try await traced("record_sign_in") { () async throws(FederateError) in try await base.recordSignIn(identity, uid: uid, at: date) }
    }

    func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        try await traced("record_returning_sign_in") { () async throws(FederateError) in
            try await base.recordReturningSignIn(latest, at: date)
        }
    }

    func recordSignIn(_ latest: ProviderIdentity, at date: Date, orCreate newUser: User) async throws(FederateError) -> RecordedSignIn {
        try await traced("record_sign_in_or_create_user") { () async throws(FederateError) in
            try await base.recordSignIn(latest, at: date, orCreate: newUser)
        }
    }

    func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        try await traced("update_identity_email") { () async throws(FederateError) in
            try await base.updateIdentityEmail(providerID: providerID, subject: subject, email: email, verified: verified)
        }
    }

    func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens? {
        try await traced("remove_identity") { () async throws(FederateError) in
            try await base.removeIdentity(providerID: providerID, fromUser: uid)
        }
    }

    func deleteUser(uid: String) async throws(FederateError) -> DeletedUser? {
        try await traced("delete_user") { () async throws(FederateError) in try await base.deleteUser(uid: uid) }
    }

    func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String] {
        try await traced("delete_expired_guests") { () async throws(FederateError) in
            try await base.deleteExpiredGuests(createdBefore: date, limit: limit)
        }
    }

    func hasGuests(atLeast count: Int, createdAfter date: Date) async throws(FederateError) -> Bool {
        try await traced("has_guests") { () async throws(FederateError) in
            try await base.hasGuests(atLeast: count, createdAfter: date)
        }
    }

    func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge {
        try await traced("merge_user") { () async throws(FederateError) in
            try await base.mergeUser(sourceUID, into: targetUID, ifIdentity: providerID, subject: subject, belongsTo: ownerUID, at: date)
        }
    }

    func pendingMerges() async throws(FederateError) -> [AccountMerge] {
        try await traced("pending_merges") { () async throws(FederateError) in try await base.pendingMerges() }
    }

    func finishMerge(sourceUID: String) async throws(FederateError) {
        try await traced("finish_merge") { () async throws(FederateError) in try await base.finishMerge(sourceUID: sourceUID) }
    }

    func accountRecords(uid: String) async throws(FederateError) -> AccountRecords? {
        try await traced("account_records") { () async throws(FederateError) in try await base.accountRecords(uid: uid) }
    }

    // MARK: SessionStore

    func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        try await traced("revoke_session") { () async throws(FederateError) in
            try await base.revokeSession(id: sessionID, uid: uid, expiresAt: expiresAt)
        }
    }

    func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        try await traced("is_session_revoked") { () async throws(FederateError) in try await base.isSessionRevoked(id: sessionID) }
    }

    func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        try await traced("remove_revoked_sessions") { () async throws(FederateError) in
            try await base.removeRevokedSessions(expiredBefore: date)
        }
    }

    func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        try await traced("end_sessions") { () async throws(FederateError) in
            try await base.endSessions(key: key, validAfter: validAfter, expiresAt: expiresAt, now: now)
        }
    }

    func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        try await traced("sessions_ended") { () async throws(FederateError) in try await base.sessionsEnded(keys: keys) }
    }

    func revocationEpoch() async throws(FederateError) -> Int64? {
        try await traced("revocation_epoch") { () async throws(FederateError) in try await base.revocationEpoch() }
    }

    func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await traced("consume_event_id") { () async throws(FederateError) in
            try await base.consumeEventID(id, expiresAt: expiresAt, now: now)
        }
    }

    func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        try await traced("has_consumed_event_id") { () async throws(FederateError) in try await base.hasConsumedEventID(id, now: now) }
    }

    // MARK: ProviderTokenStore

    func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens? {
        try await traced("kept_tokens") { () async throws(FederateError) in try await base.keptTokens(uid: uid, providerID: providerID) }
    }

    func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool {
        try await traced("replace_kept_tokens") { () async throws(FederateError) in
            try await base.replaceKeptTokens(tokens, expectedVersion: expectedVersion)
        }
    }

    func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool {
        try await traced("claim_token_refresh") { () async throws(FederateError) in
            try await base.claimTokenRefresh(providerID: providerID, subject: subject, version: version, lease: lease, now: now)
        }
    }

    func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool {
        try await traced("finish_token_refresh") { () async throws(FederateError) in
            try await base.finishTokenRefresh(tokens, leaseID: leaseID)
        }
    }

    func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError) {
        try await traced("release_token_refresh") { () async throws(FederateError) in
            try await base.releaseTokenRefresh(providerID: providerID, subject: subject, leaseID: leaseID, needsSignIn: needsSignIn)
        }
    }

    func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens] {
        try await traced("kept_tokens_to_reseal") { () async throws(FederateError) in
            try await base.keptTokens(notSealedWith: keyID, limit: limit)
        }
    }

    func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool {
        try await traced("reseal_kept_tokens") { () async throws(FederateError) in
            try await base.resealKeptTokens(tokens, previousKeyID: previousKeyID, now: now)
        }
    }

    func plaintextProviderTokens(limit: Int) async throws(FederateError) -> [RevocableTokens] {
        try await traced("plaintext_provider_tokens") { () async throws(FederateError) in
            try await base.plaintextProviderTokens(limit: limit)
        }
    }

    func clearPlaintextTokens(of identities: [RevocableTokens], keeping sealed: [SealedProviderTokens]) async throws(FederateError) {
        try await traced("clear_plaintext_tokens") { () async throws(FederateError) in
            try await base.clearPlaintextTokens(of: identities, keeping: sealed)
        }
    }

    // MARK: SessionKeyStore

    func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        try await traced("session_keys") { () async throws(FederateError) in try await base.sessionKeys() }
    }

    func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        try await traced("add_session_key") { () async throws(FederateError) in try await base.addSessionKey(key) }
    }

    func removeSessionKey(keyID: String) async throws(FederateError) {
        try await traced("remove_session_key") { () async throws(FederateError) in try await base.removeSessionKey(keyID: keyID) }
    }

    // MARK: PasskeyStore

    func addPasskey(_ passkey: Passkey) async throws(FederateError) {
        try await traced("add_passkey") { () async throws(FederateError) in
            try await base.addPasskey(passkey)
        }
    }

    func passkey(credentialID: [UInt8]) async throws(FederateError) -> Passkey? {
        try await traced("passkey_by_credential_id") { () async throws(FederateError) -> Passkey? in
            try await base.passkey(credentialID: credentialID)
        }
    }

    func passkeys(uid: String) async throws(FederateError) -> [Passkey] {
        try await traced("passkeys_by_uid") { () async throws(FederateError) -> [Passkey] in
            try await base.passkeys(uid: uid)
        }
    }

    func recordPasskeySignIn(
        credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backupState: Bool, at date: Date
    ) async throws(FederateError) -> User? {
        try await traced("record_passkey_sign_in") { () async throws(FederateError) -> User? in
            try await base.recordPasskeySignIn(
                credentialID: credentialID, previousSignCount: previousSignCount, signCount: signCount, backupState: backupState, at: date)
        }
    }

    func removePasskey(credentialID: [UInt8], fromUser uid: String) async throws(FederateError) {
        try await traced("remove_passkey") { () async throws(FederateError) in
            try await base.removePasskey(credentialID: credentialID, fromUser: uid)
        }
    }
}
