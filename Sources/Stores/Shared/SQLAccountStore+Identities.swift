package import FederateAccounts
package import FederateTokens
package import Foundation

/// Linking, refreshing and unlinking provider identities.
extension SQLAccountStore {
    /// Links an identity to a user; the database decides races (`credential_already_in_use`).
    public func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws(FederateError) {
        try await withTransaction { (connection) async throws(FederateError) in
            guard try await self.lockUser(uid, on: connection) else { throw FederateError(.userNotFound, "no user with this uid") }
            try await self.insert(identity, uid: uid, on: connection)
        }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    public func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws(FederateError) {
        let missing = FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity")
        let refresh: SQLQuery = """
            UPDATE \(table: .identities) SET email = \(identity.email), email_verified = \(identity.emailVerified),
                display_name = \(identity.profile.displayName), photo_url = \(identity.profile.photoURL), username = \(identity.profile.username),
                access_token = \(identity.tokens.accessToken), refresh_token = \(identity.tokens.refreshToken)
            WHERE user_uid = \(uid) AND provider_id = \(identity.providerID) AND subject = \(identity.subject) RETURNING user_uid
            """
        if dialect.writesInCommonTableExpressions {
            // One statement: the identity's latest data and the user's last sign-in, atomically.
            let found = try await withConnection { (connection) async throws(FederateError) in
                try await self.returnsRow(
                    """
                    WITH identity AS (\(refresh))
                    UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid IN (SELECT user_uid FROM identity) RETURNING uid
                    """,
                    on: connection)
            }
            guard found else { throw missing }
        } else {
            try await withTransaction { (connection) async throws(FederateError) in
                guard try await self.returnsRow(refresh, on: connection) else { throw missing }
                try await self.execute("UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid = \(uid)", on: connection)
            }
        }
    }

    /// Unlinks a provider, refusing the last one (`last_provider`).
    public func removeIdentity(providerID: String, fromUser uid: String) async throws(FederateError) {
        try await withTransaction { (connection) async throws(FederateError) in
            guard try await self.lockUser(uid, on: connection) else { throw FederateError(.userNotFound, "no user with this uid") }
            var providers: [String] = []
            for row in try await self.rows("SELECT provider_id FROM \(table: .identities) WHERE user_uid = \(uid)", on: connection) {
                if let providerID = try row.text("provider_id") { providers.append(providerID) }
            }
            guard providers.contains(providerID) else { throw FederateError(.noSuchProvider, "the user has no \(providerID) identity") }
            guard providers.count > 1 else { throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in") }
            try await self.execute("DELETE FROM \(table: .identities) WHERE user_uid = \(uid) AND provider_id = \(providerID)", on: connection)
        }
    }

    /// Sets the identity's email state.
    public func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws(FederateError) {
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
