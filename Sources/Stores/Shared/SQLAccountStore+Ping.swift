import FederateAccounts

/// The readiness round trip of the SQL stores.
extension SQLAccountStore {
    /// Runs `SELECT 1` on a connection: the database answers, or `account_store_failed`.
    public func ping() async throws {
        try await withConnection { try await self.execute("SELECT 1", on: $0) }
    }
}
