package import FederateTokens
package import Foundation

extension AccountStorage {
    /// An account store's one-time values (DPoP proofs) live beside its provider event IDs
    /// (`consumeEventID`), under their own prefix, so every
    /// instance on the database refuses a replay.
    public func consume(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await consumeEventID("dpop " + key, expiresAt: expiresAt, now: now)
    }
}
