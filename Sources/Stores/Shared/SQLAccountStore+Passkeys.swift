package import FederateAccounts
package import FederateTokens
package import Foundation

/// Passkeys: one row per credential ID, keyed on its exact bytes.
extension SQLAccountStore {
    /// Links a passkey to its user, who is a guest no more; the primary key decides races
    /// (`credential_already_in_use`).
    package func addPasskey(_ passkey: Passkey) async throws(FederateError) {
        try await withTransaction { (connection) async throws(FederateError) in
            guard try await self.lockUser(passkey.uid, on: connection) else { throw FederateError(.userNotFound, "no user with this uid") }
            guard
                try await self.returnsRow(
                    """
                    INSERT INTO \(table: .passkeys) (credential_id, user_uid, public_key, algorithm, sign_count, backup_eligible, \
                    backup_state, transports, name, created_at, last_used_at)
                    VALUES (\(bytes: passkey.credentialID), \(passkey.uid), \(bytes: passkey.publicKey), \(Double(passkey.algorithm)), \
                    \(Double(passkey.signCount)), \(passkey.backupEligible), \(passkey.backupState), \
                    \(passkey.transports.joined(separator: " ")), \(passkey.name), \(passkey.createdAt), \(passkey.lastUsedAt))
                    ON CONFLICT (credential_id) DO NOTHING RETURNING user_uid
                    """,
                    on: connection)
            else { throw FederateError(.credentialAlreadyInUse, "this passkey is registered already") }
            try await self.execute("UPDATE \(table: .users) SET guest = \(false) WHERE uid = \(passkey.uid) AND guest", on: connection)
        }
    }

    /// The passkey with this exact credential ID: one indexed read.
    package func passkey(credentialID: [UInt8]) async throws(FederateError) -> Passkey? {
        try await withConnection { (connection) async throws(FederateError) -> Passkey? in
            try Self.passkeys(
                in: try await self.rows(
                    "SELECT \(Self.passkeyColumns) FROM \(table: .passkeys) WHERE credential_id = \(bytes: credentialID)", on: connection)
            ).first
        }
    }

    /// The user's passkeys, oldest first.
    package func passkeys(uid: String) async throws(FederateError) -> [Passkey] {
        try await withConnection { (connection) async throws(FederateError) -> [Passkey] in
            try await self.passkeys(uid: uid, on: connection)
        }
    }

    /// The user's passkeys, oldest first, in the caller's transaction.
    func passkeys(uid: String, on connection: Connection) async throws(FederateError) -> [Passkey] {
        try Self.passkeys(
            in: try await rows(
                "SELECT \(Self.passkeyColumns) FROM \(table: .passkeys) WHERE user_uid = \(uid) ORDER BY created_at, credential_id",
                on: connection))
    }

    /// A sign-in with a passkey: its counter, backup state and last use, as a compare-and-set
    /// on the counter, and the user's last sign-in. PostgreSQL: one statement; SQLite: one
    /// transaction.
    package func recordPasskeySignIn(
        credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backupState: Bool, at date: Date
    ) async throws(FederateError) -> User? {
        let used: SQLQuery = """
            UPDATE \(table: .passkeys) SET sign_count = \(Double(signCount)), backup_state = \(backupState), last_used_at = \(date)
            WHERE credential_id = \(bytes: credentialID) AND sign_count = \(Double(previousSignCount))
                AND user_uid IN (SELECT uid FROM \(table: .users) WHERE NOT disabled)
            RETURNING user_uid
            """
        guard dialect.writesInCommonTableExpressions else {
            return try await withTransaction { (connection) async throws(FederateError) -> User? in
                guard let uid = try await self.rows(used, on: connection).first?.text("user_uid") else { return nil }
                try await self.execute("UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid = \(uid)", on: connection)
                return try await self.users(where: "u.uid = \(uid)", on: connection).first
            }
        }
        // One statement: the counter, the user's last sign-in, and the user read as the statement
        // began (its writes are not visible to it), given the new last sign-in here.
        let user = try await withConnection { (connection) async throws(FederateError) -> User? in
            try await self.users(
                where: "u.uid = (SELECT uid FROM signed_in)",
                with: """
                    used AS (\(used)), signed_in AS (
                        UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid IN (SELECT user_uid FROM used) RETURNING uid
                    )
                    """,
                on: connection
            ).first
        }
        guard var user else { return nil }
        user.lastSignInAt = date
        return user
    }

    /// Removes the user's passkey, refusing the last way to sign in (`last_provider`); the
    /// user's row is locked, so two removals of one user's last two ways in run one after the other.
    package func removePasskey(credentialID: [UInt8], fromUser uid: String) async throws(FederateError) {
        try await withTransaction { (connection) async throws(FederateError) in
            guard try await self.lockUser(uid, on: connection) else { throw FederateError(.userNotFound, "no user with this uid") }
            let passkeys = try await self.passkeys(uid: uid, on: connection)
            guard passkeys.contains(where: { $0.credentialID == credentialID }) else {
                throw FederateError(.passkeyNotFound, "the user has no passkey with this credential ID")
            }
            let hasIdentity = try await self.returnsRow(
                "SELECT provider_id FROM \(table: .identities) WHERE user_uid = \(uid)", on: connection)
            guard passkeys.count > 1 || hasIdentity else {
                throw FederateError(.lastProvider, "the passkey is the user's only way to sign in")
            }
            try await self.execute(
                "DELETE FROM \(table: .passkeys) WHERE credential_id = \(bytes: credentialID) AND user_uid = \(uid)", on: connection)
        }
    }

    /// Whether user `uid` has a passkey, in the caller's transaction.
    func hasPasskey(uid: String, on connection: Connection) async throws(FederateError) -> Bool {
        try await returnsRow("SELECT credential_id FROM \(table: .passkeys) WHERE user_uid = \(uid)", on: connection)
    }

    private static var passkeyColumns: SQLQuery {
        """
        credential_id, user_uid, public_key, algorithm, sign_count, backup_eligible, backup_state, transports, name, created_at, \
        last_used_at
        """
    }

    private static func passkeys(in rows: [Connection.Row]) throws(FederateError) -> [Passkey] {
        var passkeys: [Passkey] = []
        for row in rows {
            guard let credentialID = try row.bytes("credential_id"), let uid = try row.text("user_uid"),
                let publicKey = try row.bytes("public_key"), let algorithm = try row.real("algorithm").flatMap({ Int(exactly: $0) }),
                let signCount = try row.real("sign_count").flatMap({ UInt32(exactly: $0) }),
                let backupEligible = try row.bool("backup_eligible"), let backupState = try row.bool("backup_state"),
                let transports = try row.text("transports"), let createdAt = try row.date("created_at")
            else { throw FederateError(.accountStoreFailed, "a passkey row lacks a column") }
            passkeys.append(
                Passkey(
                    credentialID: credentialID, uid: uid, publicKey: publicKey, algorithm: algorithm, signCount: signCount,
                    backupEligible: backupEligible, backupState: backupState,
                    transports: transports.split(separator: " ").map(String.init), name: try row.text("name"), createdAt: createdAt,
                    lastUsedAt: try row.date("last_used_at")))
        }
        return passkeys
    }
}
