public import Foundation

/// Where accounts live. Every method is one atomic step (a transaction in SQL stores), and
/// uniqueness is enforced by the store itself, so that several server instances racing on
/// one database cannot link one identity to two users.
///
/// Errors are ``FederateError``s:
/// - a (provider ID, subject) pair already owned → ``FederateError/Code/credentialAlreadyInUse``;
/// - a second identity of one provider on a user → ``FederateError/Code/providerAlreadyLinked``;
/// - a normalized email already used, when ``oneAccountPerEmail`` → ``FederateError/Code/emailAlreadyInUse``;
/// - a missing user → ``FederateError/Code/userNotFound``;
/// - anything else the database says → ``FederateError/Code/accountStoreFailed``.
///
/// Implementations: ``InMemoryAccountStore`` (tests), `SQLiteAccountStore` (FederateSQLite),
/// `PostgresAccountStore` (FederatePostgres).
public protocol AccountStore: Sendable {
    /// Whether one email may belong to one user only (a unique index on the normalized email).
    var oneAccountPerEmail: Bool { get }

    /// The user with `uid`, with identities.
    func user(uid: String) async throws -> User?
    /// The user who owns the identity (`providerID`, `subject`).
    func user(providerID: String, subject: String) async throws -> User?
    /// The users whose **verified** email normalizes as `email` does (``User/uniqueEmailKey``):
    /// users with an unverified email are never found by it.
    func users(email: String) async throws -> [User]

    /// Inserts a user with its identities.
    func createUser(_ user: User) async throws
    /// Changes the user's own fields that `update` names, column by column, in one atomic
    /// step, and nothing else (``UserUpdate``); identities are untouched.
    /// ``FederateError/Code/userNotFound`` when absent.
    func updateUser(uid: String, _ update: UserUpdate) async throws
    /// Links `identity` to the user `uid`.
    func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws
    /// Records a sign-in: stores the identity's latest email, profile and tokens, and sets
    /// the user's `lastSignInAt` to `date`.
    func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws
    /// Sets the identity's email state (and, when `email` is given, its address), column by
    /// column; nothing when no user has the identity.
    func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws
    /// Unlinks the identity of `providerID` from `uid`: ``FederateError/Code/noSuchProvider``
    /// when absent, ``FederateError/Code/lastProvider`` when it is the only one.
    func removeIdentity(providerID: String, fromUser uid: String) async throws
    /// Deletes the user and their identities; returns what was deleted (`nil` if absent).
    func deleteUser(uid: String) async throws -> User?

    /// Remembers that session `sessionID` was signed out (until `expiresAt`).
    func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws
    /// Whether session `sessionID` was signed out.
    func isSessionRevoked(id sessionID: String) async throws -> Bool
    /// Forgets signed-out sessions that expired before `date` (their tokens fail on `exp` anyway).
    func removeRevokedSessions(expiredBefore date: Date) async throws

    /// Ends every session tied to `key` (a provider identity, or a provider's session; see
    /// ``AccountService/apply(_:)``) that was issued before `validAfter`; remembered until
    /// `expiresAt`. A later call with an earlier `validAfter` changes nothing.
    func endSessions(key: String, validAfter: Date, expiresAt: Date) async throws
    /// The latest `validAfter` recorded for any of `keys`, if any.
    func sessionsEnded(keys: [String]) async throws -> Date?
    /// Records a provider event's ID (a logout token's or security event's `jti`) until
    /// `expiresAt`; `true` the first time, `false` for a replay. Every instance on the same
    /// store sees every ID.
    func consumeEventID(_ id: String, expiresAt: Date) async throws -> Bool

    /// Every session-signing key.
    func sessionKeys() async throws -> [SessionKeyRecord]
    /// Adds a session-signing key.
    func addSessionKey(_ key: SessionKeyRecord) async throws
    /// Removes a session-signing key.
    func removeSessionKey(keyID: String) async throws

    /// One cheap round trip to the store (`SELECT 1` in the SQL stores), for a readiness
    /// probe; throws `account_store_failed` when the store does not answer. The default
    /// looks up a session ID that cannot exist.
    func ping() async throws
}
