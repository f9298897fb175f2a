package import FederateAccounts
package import FederateTokens
package import Foundation

/// Linking, refreshing and unlinking provider identities.
extension SQLAccountStore {
    /// Links an identity to a user, who is a guest no more; the database decides races
    /// (`credential_already_in_use`). The user's row is locked first, as every change to a
    /// user's identities does. PostgreSQL: one statement; SQLite: one transaction.
    package func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        let found: Bool
        if dialect.writesInCommonTableExpressions {
            found = try await withConnection { (connection) async throws(FederateError) in
                try await self.returnsRow(
                    """
                    WITH target AS (
                        SELECT uid FROM \(table: .users) WHERE uid = \(uid) \(unescaped: self.dialect.userRowLock)
                    ), linked AS (
                        INSERT INTO \(table: .identities) (user_uid, \(Self.identityColumns))
                        SELECT uid, \(Self.identityValues(identity)) FROM target RETURNING user_uid
                    ), upgraded AS (
                        UPDATE \(table: .users) SET guest = \(false) WHERE uid IN (SELECT user_uid FROM linked) AND guest RETURNING uid
                    )
                    SELECT uid FROM target
                    """,
                    on: connection)
            }
        } else {
            found = try await withTransaction { (connection) async throws(FederateError) in
                guard try await self.lockUser(uid, on: connection) else { return false }
                try await self.insert(identity, uid: uid, on: connection)
                try await self.execute("UPDATE \(table: .users) SET guest = \(false) WHERE uid = \(uid) AND guest", on: connection)
                return true
            }
        }
        guard found else { throw FederateError(.userNotFound, "no user with this uid") }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    package func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        let found: Bool
        if dialect.writesInCommonTableExpressions {
            // One statement: the identity's latest data and the user's last sign-in, atomically.
            found = try await withConnection { (connection) async throws(FederateError) in
                try await self.returnsRow(
                    """
                    WITH identity AS (\(Self.refresh(identity, uid: uid)))
                    UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid IN (SELECT user_uid FROM identity) RETURNING uid
                    """,
                    on: connection)
            }
        } else {
            found = try await withTransaction { (connection) async throws(FederateError) in
                try await self.writeSignIn(identity, uid: uid, at: date, on: connection)
            }
        }
        guard found else { throw Self.noSuchIdentity(identity) }
    }

    /// Writes a sign-in, in a transaction: `identity`'s row as it is, then the user's last
    /// sign-in. Whether the user `uid` has the identity.
    func writeSignIn(
        _ identity: ProviderIdentity, uid: String, at date: Date, on connection: Connection
    ) async throws(FederateError) -> Bool {
        guard try await returnsRow(Self.refresh(identity, uid: uid), on: connection) else { return false }
        try await execute("UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid = \(uid)", on: connection)
        return true
    }

    /// The `UPDATE` of the identity's row of user `uid` with `identity`'s data as it is.
    private static func refresh(_ identity: ProviderIdentity, uid: String) -> SQLQuery {
        """
        UPDATE \(table: .identities) SET \(signInAssignments(identity))
        WHERE user_uid = \(uid) AND provider_id = \(identity.providerID) AND subject = \(identity.subject) RETURNING user_uid
        """
    }

    /// A sign-in's identity is not the user's (any more).
    static func noSuchIdentity(_ identity: ProviderIdentity) -> FederateError {
        FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity")
    }

    /// What a sign-in writes on an identity's row: the latest email and profile.
    static func signInAssignments(_ identity: ProviderIdentity) -> SQLQuery {
        """
        email = \(identity.email), email_verified = \(identity.emailVerified), display_name = \(identity.profile.displayName), \
        photo_url = \(identity.profile.photoURL), username = \(identity.profile.username)
        """
    }

    /// Unlinks a provider, refusing the user's last way to sign in (`last_provider`: no other
    /// identity, no passkey); its kept tokens go with it.
    package func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) -> SealedProviderTokens? {
        try await withTransaction { (connection) async throws(FederateError) -> SealedProviderTokens? in
            guard try await self.lockUser(uid, on: connection) else { throw FederateError(.userNotFound, "no user with this uid") }
            var providers: [String] = []
            for row in try await self.rows("SELECT provider_id FROM \(table: .identities) WHERE user_uid = \(uid)", on: connection) {
                if let providerID = try row.text("provider_id") { providers.append(providerID) }
            }
            guard providers.contains(providerID) else { throw FederateError(.noSuchProvider, "the user has no \(providerID) identity") }
            let hasPasskey = try await self.hasPasskey(uid: uid, on: connection)
            guard providers.count > 1 || hasPasskey else {
                throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in")
            }
            let identity: SQLQuery =
                "SELECT provider_id, subject FROM \(table: .identities) WHERE user_uid = \(uid) AND provider_id = \(providerID)"
            let kept = try await self.keptTokens(ofIdentitiesIn: identity, on: connection).first
            try await self.execute("DELETE FROM \(table: .providerTokens) WHERE (provider_id, subject) IN (\(identity))", on: connection)
            try await self.execute(
                "DELETE FROM \(table: .identities) WHERE user_uid = \(uid) AND provider_id = \(providerID)", on: connection)
            return kept
        }
    }

    /// Sets the identity's email state.
    package func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute(
                """
                UPDATE \(table: .identities) SET email = COALESCE(\(email), email), email_verified = \(verified)
                WHERE provider_id = \(providerID) AND subject = \(subject)
                """,
                on: connection)
        }
    }
}
