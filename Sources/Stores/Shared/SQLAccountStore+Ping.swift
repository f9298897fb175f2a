import FederateAccounts
package import FederateTokens

/// The readiness round trip of the SQL stores.
extension SQLAccountStore {
    /// Runs `SELECT 1` on a connection: the database answers, or `account_store_failed`.
    public func ping() async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in try await self.execute("SELECT 1", on: connection) }
    }
}
