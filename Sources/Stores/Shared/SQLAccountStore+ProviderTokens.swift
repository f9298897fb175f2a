package import FederateAccounts
package import FederateTokens
package import Foundation

/// Kept provider tokens: one row per identity, every change a compare-and-swap in one statement.
extension SQLAccountStore {
    /// The tokens kept for `uid`'s identity of `providerID`, if the user is enabled: one
    /// indexed read.
    package func keptTokens(uid: String, providerID: String) async throws(FederateError) -> SealedProviderTokens? {
        try await withConnection { (connection) async throws(FederateError) -> SealedProviderTokens? in
            try Self.keptTokens(
                in: try await self.rows(
                    """
                    SELECT \(Self.keptTokenColumns) FROM \(table: .identities) i
                    JOIN \(table: .providerTokens) t ON t.provider_id = i.provider_id AND t.subject = i.subject
                    JOIN \(table: .users) u ON u.uid = i.user_uid
                    WHERE i.user_uid = \(uid) AND i.provider_id = \(providerID) AND NOT u.disabled
                    """,
                    on: connection)
            ).first
        }
    }

    /// Inserts (no version yet) or updates (version still `expectedVersion`) the identity's row.
    package func replaceKeptTokens(_ tokens: SealedProviderTokens, expectedVersion: Int64?) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) -> Bool in
            guard let expectedVersion else {
                return try await self.returnsRow(
                    """
                    INSERT INTO \(table: .providerTokens)
                        (provider_id, subject, key_id, sealed, access_expires_at, version, needs_sign_in, lease_id, lease_until, updated_at)
                    SELECT \(tokens.providerID), \(tokens.subject), \(tokens.keyID), \(bytes: tokens.sealed), \(tokens.accessTokenExpiresAt), \
                    \(Self.number(1)), \(false), NULL, NULL, \(tokens.updatedAt)
                    WHERE EXISTS (SELECT 1 FROM \(table: .identities) WHERE provider_id = \(tokens.providerID) AND subject = \(tokens.subject))
                    ON CONFLICT (provider_id, subject) DO NOTHING RETURNING provider_id
                    """,
                    on: connection)
            }
            return try await self.returnsRow(
                """
                UPDATE \(table: .providerTokens) SET \(Self.newTokens(tokens)), version = version + 1
                WHERE provider_id = \(tokens.providerID) AND subject = \(tokens.subject) AND version = \(Self.number(expectedVersion))
                RETURNING provider_id
                """,
                on: connection)
        }
    }

    /// Takes the lease, if the version holds and no lease is held at `now`.
    package func claimTokenRefresh(
        providerID: String, subject: String, version: Int64, lease: RefreshLease, now: Date
    ) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) -> Bool in
            try await self.returnsRow(
                """
                UPDATE \(table: .providerTokens) SET lease_id = \(lease.id), lease_until = \(lease.until)
                WHERE provider_id = \(providerID) AND subject = \(subject) AND version = \(Self.number(version)) AND NOT needs_sign_in
                    AND (lease_until IS NULL OR lease_until < \(now))
                RETURNING provider_id
                """,
                on: connection)
        }
    }

    /// Writes the refresh's tokens while lease `leaseID` and version `tokens.version` hold.
    package func finishTokenRefresh(_ tokens: SealedProviderTokens, leaseID: String) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) -> Bool in
            try await self.returnsRow(
                """
                UPDATE \(table: .providerTokens) SET \(Self.newTokens(tokens)), version = version + 1
                WHERE provider_id = \(tokens.providerID) AND subject = \(tokens.subject) AND version = \(Self.number(tokens.version))
                    AND lease_id = \(leaseID)
                RETURNING provider_id
                """,
                on: connection)
        }
    }

    /// Ends lease `leaseID`; with `needsSignIn`, marks the tokens dead.
    package func releaseTokenRefresh(providerID: String, subject: String, leaseID: String, needsSignIn: Bool) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute(
                """
                UPDATE \(table: .providerTokens) SET lease_id = NULL, lease_until = NULL, needs_sign_in = (needs_sign_in OR \(needsSignIn))
                WHERE provider_id = \(providerID) AND subject = \(subject) AND lease_id = \(leaseID)
                """,
                on: connection)
        }
    }

    /// Up to `limit` rows sealed with another key than `keyID`, least recently changed first.
    package func keptTokens(notSealedWith keyID: String, limit: Int) async throws(FederateError) -> [SealedProviderTokens] {
        try await withConnection { (connection) async throws(FederateError) -> [SealedProviderTokens] in
            try Self.keptTokens(
                in: try await self.rows(
                    """
                    SELECT \(Self.keptTokenColumns) FROM \(table: .providerTokens) t WHERE t.key_id <> \(keyID)
                    ORDER BY t.updated_at LIMIT \(unescaped: String(max(0, limit)))
                    """,
                    on: connection))
        }
    }

    /// Re-seals a row, keeping its version, if nothing moved and no lease is held at `now`.
    package func resealKeptTokens(_ tokens: SealedProviderTokens, previousKeyID: String, now: Date) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) -> Bool in
            try await self.returnsRow(
                """
                UPDATE \(table: .providerTokens) SET sealed = \(bytes: tokens.sealed), key_id = \(tokens.keyID)
                WHERE provider_id = \(tokens.providerID) AND subject = \(tokens.subject) AND version = \(Self.number(tokens.version))
                    AND key_id = \(previousKeyID) AND (lease_until IS NULL OR lease_until < \(now))
                RETURNING provider_id
                """,
                on: connection)
        }
    }

    /// Up to `limit` identities whose rows still hold tokens in the clear (Federate 0.1).
    package func plaintextProviderTokens(limit: Int) async throws(FederateError) -> [RevocableTokens] {
        try await withConnection { (connection) async throws(FederateError) -> [RevocableTokens] in
            var entries: [RevocableTokens] = []
            for row in try await self.rows(
                """
                SELECT provider_id, subject, access_token, refresh_token FROM \(table: .identities)
                WHERE access_token IS NOT NULL OR refresh_token IS NOT NULL LIMIT \(unescaped: String(max(0, limit)))
                """,
                on: connection)
            {
                guard let providerID = try row.text("provider_id"), let subject = try row.text("subject") else {
                    throw FederateError(.accountStoreFailed, "an identity row lacks provider_id or subject")
                }
                entries.append(
                    RevocableTokens(
                        providerID: providerID, subject: subject,
                        tokens: ProviderTokens(accessToken: try row.text("access_token"), refreshToken: try row.text("refresh_token"))))
            }
            return entries
        }
    }

    /// Clears the plaintext tokens of `identities` and stores `sealed` where an identity has no
    /// record, in one transaction; then lets the store erase what its journal still holds.
    package func clearPlaintextTokens(of identities: [RevocableTokens], keeping sealed: [SealedProviderTokens]) async throws(FederateError)
    {
        try await withTransaction { (connection) async throws(FederateError) in
            for identity in identities {
                try await self.execute(
                    """
                    UPDATE \(table: .identities) SET access_token = NULL, refresh_token = NULL
                    WHERE provider_id = \(identity.providerID) AND subject = \(identity.subject)
                    """,
                    on: connection)
            }
            for tokens in sealed {
                try await self.execute(
                    """
                    INSERT INTO \(table: .providerTokens)
                        (provider_id, subject, key_id, sealed, access_expires_at, version, needs_sign_in, lease_id, lease_until, updated_at)
                    SELECT \(tokens.providerID), \(tokens.subject), \(tokens.keyID), \(bytes: tokens.sealed), \(tokens.accessTokenExpiresAt), \
                    \(Self.number(1)), \(false), NULL, NULL, \(tokens.updatedAt)
                    WHERE EXISTS (SELECT 1 FROM \(table: .identities) WHERE provider_id = \(tokens.providerID) AND subject = \(tokens.subject))
                    ON CONFLICT (provider_id, subject) DO NOTHING
                    """,
                    on: connection)
            }
        }
        try await eraseJournaledSecrets()
    }

    /// The kept tokens of the identities `identities` selects (`provider_id`, `subject`), in
    /// the caller's transaction.
    func keptTokens(ofIdentitiesIn identities: SQLQuery, on connection: Connection) async throws(FederateError) -> [SealedProviderTokens] {
        try Self.keptTokens(
            in: try await rows(
                "SELECT \(Self.keptTokenColumns) FROM \(table: .providerTokens) t WHERE (t.provider_id, t.subject) IN (\(identities))",
                on: connection))
    }

    /// A version (or another count) as the schema keeps it: a double, exact below 2^53.
    static func number(_ value: Int64) -> SQLQuery { "\(Double(value))" }

    /// The assignments of a new set of tokens: no lease, no sign-in needed.
    private static func newTokens(_ tokens: SealedProviderTokens) -> SQLQuery {
        """
        key_id = \(tokens.keyID), sealed = \(bytes: tokens.sealed), access_expires_at = \(tokens.accessTokenExpiresAt), \
        needs_sign_in = \(false), lease_id = NULL, lease_until = NULL, updated_at = \(tokens.updatedAt)
        """
    }

    private static var keptTokenColumns: SQLQuery {
        "t.provider_id, t.subject, t.key_id, t.sealed, t.access_expires_at, t.version, t.needs_sign_in, t.lease_id, t.lease_until, t.updated_at"
    }

    private static func keptTokens(in rows: [Connection.Row]) throws(FederateError) -> [SealedProviderTokens] {
        var records: [SealedProviderTokens] = []
        for row in rows {
            guard let providerID = try row.text("provider_id"), let subject = try row.text("subject"), let keyID = try row.text("key_id"),
                let sealed = try row.bytes("sealed"), let version = try row.real("version"), let exact = Int64(exactly: version),
                let updatedAt = try row.date("updated_at")
            else { throw FederateError(.accountStoreFailed, "a provider-token row lacks a column") }
            var lease: RefreshLease?
            if let id = try row.text("lease_id"), let until = try row.date("lease_until") { lease = RefreshLease(id: id, until: until) }
            records.append(
                SealedProviderTokens(
                    providerID: providerID, subject: subject, keyID: keyID, sealed: sealed,
                    accessTokenExpiresAt: try row.date("access_expires_at"),
                    version: exact, needsSignIn: try row.bool("needs_sign_in") ?? false, lease: lease, updatedAt: updatedAt))
        }
        return records
    }
}
