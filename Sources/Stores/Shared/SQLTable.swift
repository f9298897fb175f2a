/// The tables of the account schema. Shared SQL names a table through
/// ``SQLQuery/StringInterpolation/appendInterpolation(table:)`` and the store's
/// ``SQLDialect`` qualifies it (PostgreSQL: with the store's schema).
package enum SQLTable: String, Sendable, CaseIterable {
    /// Users, one row each.
    case users
    /// Provider identities, each linked to a user.
    case identities
    /// Signed-out sessions.
    case revokedSessions = "revoked_sessions"
    /// Session-signing keys.
    case sessionKeys = "session_keys"
    /// Sessions ended by a provider, by key.
    case endedSessions = "ended_sessions"
    /// Provider event IDs already seen.
    case seenEvents = "seen_events"
    /// One row: the revocation epoch (`SessionStore.revocationEpoch()`).
    case revocationEpoch = "revocation_epoch"
    /// Kept provider tokens, sealed, one row per identity.
    case providerTokens = "provider_tokens"
    /// Merges whose application hook has not finished, by source uid.
    case merges
    /// Passkeys, one row per credential ID.
    case passkeys
}
