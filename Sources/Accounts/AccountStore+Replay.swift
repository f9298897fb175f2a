public import FederateTokens
public import Foundation

extension AccountStore {
    /// An account store's one-time values (DPoP proofs) live beside its provider event IDs
    /// (``SessionStore/consumeEventID(_:expiresAt:now:)``), under their own prefix, so every
    /// instance on the database refuses a replay.
    public func consume(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await consumeEventID("dpop " + key, expiresAt: expiresAt, now: now)
    }
}
