public import Foundation

/// Where a server remembers the one-time values it accepted, so each is used once: DPoP
/// proofs (RFC 9449 §11.1) for ``DPoPProofValidator``, and WebAuthn challenges for
/// ``WebAuthnRelyingParty`` (keyed `webauthn:` + base64url(SHA-256(challenge))). Shared by
/// every instance of a server, a value replayed to another instance is refused too.
///
/// Implementations: ``InMemoryReplayStore`` (one process), and every account store of
/// FederateAccounts (`InMemoryAccountStore`, `SQLiteAccountStore`, `PostgresAccountStore`),
/// which keep the values beside the provider event IDs they already de-duplicate. A resource
/// server that keeps no accounts needs only this module and a store of its own (Redis,
/// memcached…) implementing this protocol.
public protocol ReplayStore: Sendable {
    /// `true` the first time `key` is presented while unexpired; `false` when it was presented
    /// before and its entry has not expired (a replay). Keys compare byte for byte. Entries
    /// expire at `expiresAt`; a store forgets expired entries as of `now`.
    func consume(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool
}
