public import FederateTokens
public import Foundation

/// Where a DPoP resource or authorization server remembers the proofs it accepted, so each
/// proof is used once (RFC 9449 §11.1): shared by every instance of the server, so a proof
/// replayed to another instance is refused too.
///
/// Implementations: ``InMemoryDPoPReplayStore`` (one process), and every account store
/// (`InMemoryAccountStore`, `SQLiteAccountStore`, `PostgresAccountStore`), which keep the
/// proofs beside the provider event IDs they already de-duplicate.
public protocol DPoPReplayStore: Sendable {
    /// `true` the first time `key` is presented while unexpired; `false` when it was
    /// presented before and its entry has not expired (a replay). Entries expire at
    /// `expiresAt`; a store forgets expired entries as of `now`.
    func consumeProofKey(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool
}

extension DPoPReplayStore where Self: AccountStore {
    /// An account store's proofs live beside its provider event IDs
    /// (``SessionStore/consumeEventID(_:expiresAt:now:)``), under their own prefix.
    public func consumeProofKey(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await consumeEventID("dpop " + key, expiresAt: expiresAt, now: now)
    }
}

extension InMemoryAccountStore: DPoPReplayStore {}
extension TracedAccountStore: DPoPReplayStore {}

/// Any ``AccountStore`` as a ``DPoPReplayStore`` (for a store held as `any AccountStore`).
public struct AccountStoreReplayStore: DPoPReplayStore {
    /// The account store.
    public let store: any AccountStore

    /// Wraps `store`.
    public init(_ store: any AccountStore) {
        self.store = store
    }

    public func consumeProofKey(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await store.consumeEventID("dpop " + key, expiresAt: expiresAt, now: now)
    }
}
