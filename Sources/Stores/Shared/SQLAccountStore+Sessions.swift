package import FederateTokens
package import FederateAccounts
package import Foundation

/// Signed-out sessions, sessions ended by providers, provider event IDs, session-signing keys.
extension SQLAccountStore {
    /// Remembers a signed-out session.
    package func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws(FederateError) {
        try await revoking { (connection) async throws(FederateError) in
            try await self.execute(
                """
                INSERT INTO \(table: .revokedSessions) (sid, uid, expires_at) VALUES (\(sessionID), \(uid), \(expiresAt))
                ON CONFLICT (sid) DO NOTHING
                """,
                on: connection)
        }
    }

    /// Whether a session was signed out.
    package func isSessionRevoked(id sessionID: String) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.returnsRow("SELECT sid FROM \(table: .revokedSessions) WHERE sid = \(sessionID)", on: connection)
        }
    }

    /// Forgets signed-out sessions that expired before `date`.
    package func removeRevokedSessions(expiredBefore date: Date) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute("DELETE FROM \(table: .revokedSessions) WHERE expires_at < \(date)", on: connection)
        }
    }

    /// Ends the sessions tied to `key` issued before `validAfter` (never moving it back).
    package func endSessions(key: String, validAfter: Date, expiresAt: Date, now: Date) async throws(FederateError) {
        let greatest = dialect.greatest
        try await revoking { (connection) async throws(FederateError) in
            try await self.execute(
                """
                INSERT INTO \(table: .endedSessions) (key, valid_after, expires_at) VALUES (\(key), \(validAfter), \(expiresAt))
                ON CONFLICT (key) DO UPDATE SET
                    valid_after = \(unescaped: greatest)(\(table: .endedSessions).valid_after, excluded.valid_after),
                    expires_at = \(unescaped: greatest)(\(table: .endedSessions).expires_at, excluded.expires_at)
                """,
                on: connection)
            try await self.execute("DELETE FROM \(table: .endedSessions) WHERE expires_at < \(now)", on: connection)
        }
    }

    /// The latest `validAfter` of `keys`.
    package func sessionsEnded(keys: [String]) async throws(FederateError) -> Date? {
        guard !keys.isEmpty else { return nil }
        return try await withConnection { (connection) async throws(FederateError) in
            try await self.rows(
                "SELECT MAX(valid_after) AS latest FROM \(table: .endedSessions) WHERE key IN (\(list: keys))", on: connection
            ).first?.date("latest")
        }
    }

    /// `true` the first time `id` is seen (until `expiresAt`), for every store on this database.
    package func consumeEventID(_ id: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute("DELETE FROM \(table: .seenEvents) WHERE expires_at < \(now)", on: connection)
            return try await self.returnsRow(
                "INSERT INTO \(table: .seenEvents) (id, expires_at) VALUES (\(id), \(expiresAt)) ON CONFLICT (id) DO NOTHING RETURNING id",
                on: connection)
        }
    }

    /// Whether `id` was consumed and has not expired at `now`, for every store on this database.
    package func hasConsumedEventID(_ id: String, now: Date) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.returnsRow("SELECT id FROM \(table: .seenEvents) WHERE id = \(id) AND expires_at >= \(now)", on: connection)
        }
    }

    /// Every session-signing key, oldest first.
    package func sessionKeys() async throws(FederateError) -> [SessionKeyRecord] {
        try await withConnection { (connection) async throws(FederateError) in
            var records: [SessionKeyRecord] = []
            for row in try await self.rows(
                "SELECT kid, private_key, created_at FROM \(table: .sessionKeys) ORDER BY created_at", on: connection)
            {
                if let kid = try row.text("kid"), let key = try row.bytes("private_key"), let created = try row.date("created_at") {
                    records.append(SessionKeyRecord(keyID: kid, privateKey: key, createdAt: created))
                }
            }
            return records
        }
    }

    /// Adds a session-signing key.
    package func addSessionKey(_ key: SessionKeyRecord) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute(
                "INSERT INTO \(table: .sessionKeys) (kid, private_key, created_at) VALUES (\(key.keyID), \(bytes: key.privateKey), \(key.createdAt))",
                on: connection)
        }
    }

    /// Removes a session-signing key.
    package func removeSessionKey(keyID: String) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute("DELETE FROM \(table: .sessionKeys) WHERE kid = \(keyID)", on: connection)
        }
    }
}
