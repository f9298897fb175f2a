public import FederateAccounts

/// Used DPoP proofs live in the store's `seen_events` table, beside provider event IDs, so
/// every server instance on this database refuses a proof replayed to another.
extension PostgresAccountStore: DPoPReplayStore {}
