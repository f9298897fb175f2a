import FederateAccounts
package import FederateTokens

/// The revocation epoch (`SessionStore.revocationEpoch()`): one row, advanced in the same
/// transaction as every change that can end a session, so that no instance can read the
/// change without the new epoch, or the new epoch without the change.
extension SQLAccountStore {
    /// The current epoch, as committed. (Read as a double, which both dialects decode and
    /// which is exact far beyond any number of revocations.)
    package func revocationEpoch() async throws(FederateError) -> Int64? {
        let epoch = try await withConnection { (connection) async throws(FederateError) in
            try await self.rows(
                "SELECT CAST(epoch AS DOUBLE PRECISION) AS epoch FROM \(table: .revocationEpoch) WHERE id = 1", on: connection
            ).first?.real("epoch")
        }
        guard let epoch, let exact = Int64(exactly: epoch) else {
            throw FederateError(.accountStoreFailed, "the revocation epoch is missing or unreadable")
        }
        return exact
    }

    /// Runs `body` in a write transaction and advances the epoch before it commits. The
    /// epoch's row is written last, so concurrent revocations hold its lock only briefly.
    func revoking<T: Sendable>(_ body: (Connection) async throws(FederateError) -> T) async throws(FederateError) -> T {
        try await withTransaction { (connection) async throws(FederateError) in
            let result = try await body(connection)
            try await self.advanceRevocationEpoch(on: connection)
            return result
        }
    }

    /// Advances the epoch, inside the caller's transaction.
    func advanceRevocationEpoch(on connection: Connection) async throws(FederateError) {
        guard try await returnsRow("UPDATE \(table: .revocationEpoch) SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch", on: connection)
        else {
            throw FederateError(.accountStoreFailed, "the revocation epoch is missing")
        }
    }
}
