package import FederateTokens
package import Foundation

/// Kept provider tokens (`SealedProviderTokens`), one record per provider identity: the part
/// of an ``AccountStore`` that ``AccountService/accessToken(for:providerID:)`` uses. A record
/// lives and dies with its identity: unlinking the identity or deleting its user erases it in
/// the same atomic step, and merging moves it with the identity.
///
/// Refreshes are coordinated through the store, so that one instance at a time refreshes an
/// identity, however many share the store: a lease is taken by compare-and-swap on the
/// record's `SealedProviderTokens.version` (`claimTokenRefresh(providerID:subject:version:lease:now:)`),
/// and the new tokens are written only by the lease's holder, while it still holds it
/// (`finishTokenRefresh(_:leaseID:)`). Errors: `FederateError/Code/accountStoreFailed`,
/// `FederateError/Code/storeUnavailable`.
package protocol ProviderTokenStore: Sendable {
    /// The tokens kept for user `uid`'s identity of `providerID`, if the user exists, is
    /// enabled, has that identity, and tokens are kept for it.
    func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens?

    /// Stores `tokens` for their identity, as version `expectedVersion + 1` (1 when
    /// `expectedVersion` is `nil`), with no lease and `needsSignIn` false — only if the stored
    /// version is still `expectedVersion` (`nil`: none stored) and the identity exists. `false`
    /// otherwise: read again and retry. `tokens.version` is ignored.
    func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool

    /// Takes the refresh lease of the identity's tokens if their version is still `version`,
    /// they do not need a sign-in, and no lease is held at `now` (none, or one that ended
    /// before `now`). `true` when taken: this caller, alone, may refresh them until `lease.until`.
    func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool

    /// The refresh's outcome, written by the holder of lease `leaseID` while it still holds it:
    /// `tokens` become version `tokens.version + 1` (`tokens.version` is the version refreshed),
    /// the lease ends. `false` when the lease or version moved on, or the identity is gone.
    func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool

    /// Ends lease `leaseID` without new tokens; with `needsSignIn`, marks the tokens as dead
    /// (the provider answered `invalid_grant`). Nothing when the lease is not held any more.
    func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError)

    /// Up to `limit` records not sealed with key `keyID`, for re-encryption.
    func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens]

    /// Replaces the sealed value and key of a record read by `keptTokens(notSealedWith:limit:)`
    /// with `tokens.sealed` and `tokens.keyID`, keeping its version, if its version is still
    /// `tokens.version`, its key still `previousKeyID`, and no lease is held at `now`.
    func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool

    /// Up to `limit` identities whose rows still hold tokens in the clear
    /// (`ProviderIdentity.plaintextTokens`, written by Federate 0.1), with those tokens.
    func plaintextProviderTokens(limit: Int) async throws(FederateError) -> [RevocableTokens]

    /// In one atomic step: clears the plaintext tokens of `identities`, and stores each of
    /// `sealed` as its identity's record (version 1) where the identity exists and has none.
    func clearPlaintextTokens(of identities: [RevocableTokens], keeping sealed: [SealedProviderTokens]) async throws(FederateError)
}
