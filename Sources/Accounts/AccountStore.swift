public import FederateTokens
package import Foundation

/// Where accounts live: ``InMemoryAccountStore`` (tests and prototypes), `SQLiteAccountStore`
/// (FederateSQLite) or `PostgresAccountStore` (FederatePostgres), handed to ``AccountService``.
///
/// The stores are Federate's own: every method is one atomic step (a transaction in the SQL
/// stores) and the store itself enforces uniqueness, so that several server instances racing
/// on one database cannot link one identity to two users; one conformance suite checks each
/// of them. The operations the service calls are not part of the public API: a store hands
/// them over as ``operations``, which only Federate's stores can make, so a type of your own
/// cannot be an account store. Every account store is also a `ReplayStore` (FederateTokens)
/// for DPoP proofs, kept beside the provider event IDs.
public protocol AccountStore: ReplayStore {
    /// One cheap round trip to the store (`SELECT 1` in the SQL stores), for a readiness
    /// probe; throws `account_store_failed` when the store does not answer.
    func ping() async throws(FederateError)

    /// The store's operations, for ``AccountService``.
    var operations: AccountStoreOperations { get }
}

/// The operations of one of Federate's account stores, which an ``AccountStore`` hands to
/// ``AccountService``. It has no public initializer: only Federate's stores make one.
public struct AccountStoreOperations: Sendable {
    package let storage: any AccountStorage

    init(_ storage: any AccountStorage) {
        self.storage = storage
    }
}

/// The operations of an ``AccountStore``, one protocol per concern, so a part of the SDK that
/// needs one concern asks for that one only: `UserStore` (users and their provider
/// identities, guests, merges), `SessionStore` (signed-out sessions, ended provider
/// sessions, replayed event IDs), `SessionKeyStore` (the keys session tokens are signed
/// with) and `ProviderTokenStore` (kept provider tokens). Every account store of this
/// package conforms; ``AccountService`` takes an ``AccountStore`` and uses it through this.
///
/// Errors are `FederateError`s:
/// - a (provider ID, subject) pair already owned → `FederateError/Code/credentialAlreadyInUse`;
/// - a second identity of one provider on a user → `FederateError/Code/providerAlreadyLinked`;
/// - a normalized email already used, when `UserStore.oneAccountPerEmail` → `FederateError/Code/emailAlreadyInUse`;
/// - a missing user → `FederateError/Code/userNotFound`;
/// - anything else the database says → `FederateError/Code/accountStoreFailed`.
package protocol AccountStorage: AccountStore, UserStore, SessionStore, SessionKeyStore, ProviderTokenStore, PasskeyStore {}

extension AccountStorage {
    /// This store's operations: itself.
    public var operations: AccountStoreOperations { AccountStoreOperations(self) }
}

extension AccountStore {
    /// The store's operations.
    package var storage: any AccountStorage { operations.storage }
}

/// Users and their provider identities: the part of an ``AccountStore`` that sign-in, linking
/// and account management use. Errors as `AccountStorage` lists them.
package protocol UserStore: Sendable {
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    var oneAccountPerEmail: Bool { get }

    /// The user with `uid`, with identities.
    func user(uid: String) async throws(FederateError) -> User?
    /// The user who owns the identity (`providerID`, `subject`).
    func user(providerID: String, subject: String) async throws(FederateError) -> User?
    /// The users whose **verified** email normalizes as `email` does (`User.uniqueEmailKey`):
    /// users with an unverified email are never found by it.
    func users(email: String) async throws(FederateError) -> [User]

    /// Inserts a user with its identities.
    func createUser(_ user: User) async throws(FederateError)
    /// Changes the user's own fields that `update` names, column by column, in one atomic
    /// step, and nothing else (`UserUpdate`); identities are untouched.
    /// `FederateError/Code/userNotFound` when absent.
    func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError)
    /// Links `identity` to the user `uid`; a guest (``User/isGuest``) stops being one in the
    /// same atomic step, so a concurrent `deleteExpiredGuests(createdBefore:limit:)` either
    /// deletes the guest before the link (which then fails with `user_not_found`) or not at all.
    func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError)
    /// Records a sign-in: stores the identity's latest email, profile and tokens, and sets
    /// the user's `lastSignInAt` to `date`.
    func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError)
    /// A returning sign-in: the user who owns `latest`'s identity (its provider ID and
    /// subject), as they are once the sign-in is recorded (`User.signedIn(with:at:)`), or
    /// `nil` when no user owns it. A disabled user is returned as found, and nothing is
    /// recorded.
    ///
    /// The default is two steps, `user(providerID:subject:)` then
    /// `recordSignIn(_:uid:at:)`. The SQL stores take one atomic step: one statement on
    /// PostgreSQL (one round trip), one transaction on SQLite.
    func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User?
    /// A sign-in, returning or new, in one step: `latest`'s identity signed in again, as
    /// ``recordReturningSignIn(_:at:)`` does, or, when no user owns it, `newUser` (whose one
    /// identity is `latest`'s) created, as ``createUser(_:)`` does, with its errors.
    /// ``AccountService/signIn(with:)`` starts here, so any sign-in costs one call.
    ///
    /// The default is those two calls. PostgreSQL takes one statement (one round trip),
    /// SQLite one transaction.
    func recordSignIn(_ latest: ProviderIdentity, at date: Date, orCreate newUser: User) async throws(FederateError) -> RecordedSignIn
    /// Sets the identity's email state (and, when `email` is given, its address), column by
    /// column; nothing when no user has the identity.
    func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError)
    /// Unlinks the identity of `providerID` from `uid`, erasing the provider tokens kept for
    /// it in the same atomic step, and returns them (`nil` when none were kept):
    /// `FederateError/Code/noSuchProvider` when absent, `FederateError/Code/lastProvider` when
    /// it is the only one.
    func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens?
    /// Deletes the user and everything the store holds about them, in one atomic step: their
    /// identities, the provider tokens kept for them, their signed-out sessions, the ends of
    /// their identities' sessions, and their unfinished merges. Returns what was deleted
    /// (`nil` if absent), kept tokens included, so they can be revoked.
    func deleteUser(uid: String) async throws(FederateError) -> DeletedUser?
    /// Deletes up to `limit` guests (``User/isGuest``) created before `date`, as
    /// ``deleteUser(uid:)`` does; returns their uids.
    func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String]
    /// Whether at least `count` guests (``User/isGuest``) were created after `date`: the cap
    /// on live guests, read without counting past it.
    func hasGuests(atLeast count: Int, createdAfter date: Date) async throws(FederateError) -> Bool
    /// Merges user `sourceUID` into `targetUID` in one atomic step, if the identity
    /// (`providerID`, `subject`) still belongs to `ownerUID` (one of the two): the source's
    /// identities (with their kept tokens) move to the target, the source's signed-out
    /// sessions are forgotten, the source is deleted, the revocation epoch advances (the
    /// source's sessions stop verifying), and the merge is recorded as pending for the
    /// application's hook (`pendingMerges()`). Returns the merge.
    ///
    /// Changes nothing and throws `FederateError/Code/userNotFound` when either user is gone,
    /// `FederateError/Code/userDisabled` when either is disabled,
    /// `FederateError/Code/credentialAlreadyInUse` when the identity no longer belongs to
    /// `ownerUID`, `FederateError/Code/providerAlreadyLinked` when the target already has an
    /// identity of a provider the source has. Concurrent merges, links and deletions of
    /// either user run one after the other, so each identity ends with exactly one owner.
    func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge
    /// The merges whose application hook has not finished (`finishMerge(sourceUID:)`), oldest first.
    func pendingMerges() async throws(FederateError) -> [AccountMerge]
    /// Forgets the pending merge of `sourceUID` once the application's hook has run.
    func finishMerge(sourceUID: String) async throws(FederateError)
    /// Everything the store holds about user `uid`, for an export; `nil` if absent.
    func accountRecords(uid: String) async throws(FederateError) -> AccountRecords?
}

/// Signed-out sessions, provider sessions that ended, and provider event IDs already seen: the
/// part of an ``AccountStore`` that session checks and provider events use. Every instance on
/// one database sees every change. Errors: `FederateError/Code/accountStoreFailed`.
package protocol SessionStore: Sendable {
    /// Remembers that session `sessionID` was signed out (until `expiresAt`).
    func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError)
    /// Whether session `sessionID` was signed out.
    func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool
    /// Forgets signed-out sessions that expired before `date` (their tokens fail on `exp` anyway).
    func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError)

    /// Ends every session tied to `key` (a provider identity, or a provider's session; see
    /// ``AccountService/apply(_:)``) that was issued before `validAfter`; remembered until
    /// `expiresAt`. A later call with an earlier `validAfter` changes nothing. Records that
    /// expired before `now` may be forgotten.
    func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError)
    /// The latest `validAfter` recorded for any of `keys`, if any.
    func sessionsEnded(keys: [String]) async throws(FederateError) -> Date?
    /// Records a provider event's ID (a logout token's or security event's `jti`) until
    /// `expiresAt`; `true` the first time, `false` for a replay. Every instance on the same
    /// store sees every ID. IDs that expired before `now` may be forgotten.
    func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool
    /// Whether `consumeEventID(_:expiresAt:now:)` recorded `id` and it has not expired at
    /// `now`, without recording it: a provider's idempotent delivery (Apple, RISC) is applied
    /// first and consumed after, so a failure leaves it for the provider's retry, while a
    /// replay of one already applied is still acknowledged without effect.
    func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool

    /// The revocation epoch: a number that grows in the same atomic step as every change that
    /// can make a session stop verifying (`revokeSession(id:uid:expiresAt:)`,
    /// `endSessions(key:validAfter:expiresAt:now:)`, `UserStore.deleteUser(uid:)`, and
    /// `UserStore.updateUser(uid:_:)` with `UserUpdate.disabled` or
    /// `UserUpdate.tokensValidAfter`), as every instance on the store sees it.
    /// ``AccountService`` caches the outcome of session checks while it stays the same
    /// (`AccountServiceConfiguration.revocationCheckInterval`). `nil` (the default) when the
    /// store keeps none: the service then asks the store on every session check.
    func revocationEpoch() async throws(FederateError) -> Int64?
}

extension SessionStore {
    /// No epoch: the store is asked on every session check.
    package func revocationEpoch() async throws(FederateError) -> Int64? { nil }

    /// `false`: a store that cannot tell has an idempotent delivery applied again on replay
    /// (harmless by its kind), and still acknowledged.
    package func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool { false }
}

/// The keys session tokens are signed with (``AccountService`` rotates them): the part of an
/// ``AccountStore`` that session signing uses. Errors: `FederateError/Code/accountStoreFailed`.
package protocol SessionKeyStore: Sendable {
    /// Every session-signing key.
    func sessionKeys() async throws(FederateError) -> [SessionKeyRecord]
    /// Adds a session-signing key.
    func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError)
    /// Removes a session-signing key.
    func removeSessionKey(keyID: String) async throws(FederateError)
}
