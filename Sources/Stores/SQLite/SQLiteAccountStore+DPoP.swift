public import FederateAccounts

/// Used DPoP proofs live in the store's `seen_events` table, beside provider event IDs, so
/// every process on this database file refuses a replayed proof.
extension SQLiteAccountStore: DPoPReplayStore {}
