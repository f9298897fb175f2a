public import FederateAccounts
import FederateTokens
public import Foundation
import NIOCore
import PostgresNIO

extension PostgresAccountStore {
    /// The user with `uid`, with identities.
    public func user(uid: String) async throws -> User? {
        try await connection { try await self.users(where: "u.uid = \(uid)", on: $0).first }
    }

    /// The user who owns the identity (`providerID`, `subject`).
    public func user(providerID: String, subject: String) async throws -> User? {
        try await connection { connection in
            try await self.users(
                where: "u.uid = (SELECT user_uid FROM \(unescaped: self.schema.identities) WHERE provider_id = \(providerID) AND subject = \(subject))",
                on: connection
            ).first
        }
    }

    /// The users whose normalized email matches, oldest first.
    public func users(email: String) async throws -> [User] {
        let normalized = User.normalizedEmail(email)
        return try await connection { try await self.users(where: "u.email_normalized = \(normalized)", on: $0) }
    }

    /// Inserts a user with its identities; unique violations become account errors.
    public func createUser(_ user: User) async throws {
        guard user.identities.count == 1, let identity = user.identities.first else {
            return try await createUserInTransaction(user)
        }
        // The common case in one statement (one round trip, atomic on its own).
        try await connection { connection in
            try await self.run(
                """
                WITH new_user AS (
                    INSERT INTO \(unescaped: self.schema.users) (uid, email, email_normalized, email_verified, display_name, photo_url, disabled,
                        created_at, last_sign_in_at, tokens_valid_after)
                    VALUES (\(user.uid), \(user.email), \(user.uniqueEmailKey), \(user.emailVerified), \(user.displayName),
                        \(user.photoURL), \(user.disabled), \(user.createdAt.timeIntervalSince1970), \(user.lastSignInAt?.timeIntervalSince1970),
                        \(user.tokensValidAfter?.timeIntervalSince1970))
                    RETURNING uid
                )
                INSERT INTO \(unescaped: self.schema.identities) (user_uid, provider_id, subject, email, email_verified, display_name, photo_url,
                    username, linked_at, access_token, refresh_token)
                SELECT uid, \(identity.providerID), \(identity.subject), \(identity.email), \(identity.emailVerified),
                    \(identity.profile.displayName), \(identity.profile.photoURL), \(identity.profile.username),
                    \(identity.linkedAt.timeIntervalSince1970), \(identity.tokens.accessToken), \(identity.tokens.refreshToken)
                FROM new_user
                """,
                on: connection)
        }
    }

    private func createUserInTransaction(_ user: User) async throws {
        try await transaction { connection in
            try await self.run(
                """
                INSERT INTO \(unescaped: self.schema.users) (uid, email, email_normalized, email_verified, display_name, photo_url, disabled,
                    created_at, last_sign_in_at, tokens_valid_after)
                VALUES (\(user.uid), \(user.email), \(user.uniqueEmailKey), \(user.emailVerified), \(user.displayName),
                    \(user.photoURL), \(user.disabled), \(user.createdAt.timeIntervalSince1970), \(user.lastSignInAt?.timeIntervalSince1970),
                    \(user.tokensValidAfter?.timeIntervalSince1970))
                """,
                on: connection)
            for identity in user.identities { try await self.insert(identity, uid: user.uid, on: connection) }
        }
    }

    /// Changes the columns `update` names and no other (``UserUpdate``), in one statement:
    /// every expression reads the row as it is when the statement runs (under its row lock).
    public func updateUser(uid: String, _ update: UserUpdate) async throws {
        var assignments: [String] = []
        var binds = PostgresBindings()
        func bind(_ value: some PostgresEncodable & Sendable) throws -> String {
            try binds.append(value)
            return "$\(binds.count)"
        }
        if let email = update.email {
            let address = try bind(email.address)
            let key = email.verified ? try bind(User.normalizedEmail(email.address)) : "NULL"
            let verified = try bind(email.verified)
            if update.emailOnlyIfNone {
                assignments += [
                    "email = CASE WHEN email IS NULL THEN \(address) ELSE email END",
                    "email_normalized = CASE WHEN email IS NULL THEN \(key) ELSE email_normalized END",
                    "email_verified = CASE WHEN email IS NULL THEN \(verified) ELSE email_verified END",
                ]
            } else {
                assignments += ["email = \(address)", "email_normalized = \(key)", "email_verified = \(verified)"]
            }
        }
        if let name = update.displayNameIfNone {
            let value = try bind(name)
            assignments.append("display_name = COALESCE(display_name, \(value))")
        }
        if let photo = update.photoURLIfNone {
            let value = try bind(photo)
            assignments.append("photo_url = COALESCE(photo_url, \(value))")
        }
        if let disabled = update.disabled {
            let value = try bind(disabled)
            assignments.append("disabled = \(value)")
        }
        if let validAfter = update.tokensValidAfter {
            let value = try bind(validAfter.timeIntervalSince1970)
            assignments.append("tokens_valid_after = GREATEST(tokens_valid_after, \(value))")
        }
        let set = assignments.isEmpty ? "uid = uid" : assignments.joined(separator: ", ")
        let uidPlaceholder = try bind(uid)
        let query = PostgresQuery(unsafeSQL: "UPDATE \(self.schema.users) SET \(set) WHERE uid = \(uidPlaceholder) RETURNING uid", binds: binds)
        let updated = try await connection { connection in try await self.rows(query, on: connection).count }
        guard updated > 0 else { throw FederateError(.userNotFound, "no user with this uid") }
    }

    /// Links an identity to a user; the database decides races (`credential_already_in_use`).
    public func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws {
        try await transaction { connection in
            try await self.lockUser(uid, on: connection)
            try await self.insert(identity, uid: uid, on: connection)
        }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    public func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws {
        // One statement: the identity's latest data and the user's last sign-in, atomically.
        let updated = try await connection { connection in
            try await self.rows(
                """
                WITH identity AS (
                    UPDATE \(unescaped: self.schema.identities) SET email = \(identity.email), email_verified = \(identity.emailVerified),
                        display_name = \(identity.profile.displayName), photo_url = \(identity.profile.photoURL), username = \(identity.profile.username),
                        access_token = \(identity.tokens.accessToken), refresh_token = \(identity.tokens.refreshToken)
                    WHERE user_uid = \(uid) AND provider_id = \(identity.providerID) AND subject = \(identity.subject) RETURNING user_uid
                )
                UPDATE \(unescaped: self.schema.users) SET last_sign_in_at = \(date.timeIntervalSince1970)
                WHERE uid IN (SELECT user_uid FROM identity) RETURNING uid
                """,
                on: connection
            ).count
        }
        guard updated > 0 else { throw FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity") }
    }

    /// Unlinks a provider, refusing the last one (`last_provider`).
    public func removeIdentity(providerID: String, fromUser uid: String) async throws {
        try await transaction { connection in
            try await self.lockUser(uid, on: connection)
            let providers = try await self.rows("SELECT provider_id FROM \(unescaped: self.schema.identities) WHERE user_uid = \(uid)", on: connection)
                .map { try $0.decode(String.self) }
            guard providers.contains(providerID) else { throw FederateError(.noSuchProvider, "the user has no \(providerID) identity") }
            guard providers.count > 1 else { throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in") }
            try await self.run(
                "DELETE FROM \(unescaped: self.schema.identities) WHERE user_uid = \(uid) AND provider_id = \(providerID)", on: connection)
        }
    }

    /// Deletes the user and their identities; returns what was deleted.
    public func deleteUser(uid: String) async throws -> User? {
        try await transaction { connection in
            guard try await self.lockUser(uid, on: connection, required: false) else { return nil }
            let user = try await self.users(where: "u.uid = \(uid)", on: connection).first
            try await self.run("DELETE FROM \(unescaped: self.schema.identities) WHERE user_uid = \(uid)", on: connection)
            try await self.run("DELETE FROM \(unescaped: self.schema.users) WHERE uid = \(uid)", on: connection)
            return user
        }
    }

    /// Remembers a signed-out session.
    public func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws {
        try await connection { connection in
            try await self.run(
                """
                INSERT INTO \(unescaped: self.schema.revokedSessions) (sid, uid, expires_at) VALUES (\(sessionID), \(uid), \(expiresAt.timeIntervalSince1970))
                ON CONFLICT (sid) DO NOTHING
                """,
                on: connection)
        }
    }

    /// Whether a session was signed out.
    public func isSessionRevoked(id sessionID: String) async throws -> Bool {
        try await connection { connection in
            try await !self.rows("SELECT sid FROM \(unescaped: self.schema.revokedSessions) WHERE sid = \(sessionID)", on: connection).isEmpty
        }
    }

    /// Sets the identity's email state.
    public func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws {
        try await connection { connection in
            try await self.run(
                """
                UPDATE \(unescaped: self.schema.identities) SET email = COALESCE(\(email), email), email_verified = \(verified)
                WHERE provider_id = \(providerID) AND subject = \(subject)
                """,
                on: connection)
        }
    }

    /// Ends the sessions tied to `key` issued before `validAfter` (never moving it back).
    public func endSessions(key: String, validAfter: Date, expiresAt: Date) async throws {
        try await connection { connection in
            try await self.run(
                """
                INSERT INTO \(unescaped: self.schema.endedSessions) (key, valid_after, expires_at)
                VALUES (\(key), \(validAfter.timeIntervalSince1970), \(expiresAt.timeIntervalSince1970))
                ON CONFLICT (key) DO UPDATE SET valid_after = GREATEST(\(unescaped: self.schema.endedSessions).valid_after, excluded.valid_after),
                    expires_at = GREATEST(\(unescaped: self.schema.endedSessions).expires_at, excluded.expires_at)
                """,
                on: connection)
            try await self.run(
                "DELETE FROM \(unescaped: self.schema.endedSessions) WHERE expires_at < \(Date().timeIntervalSince1970)", on: connection)
        }
    }

    /// The latest `validAfter` of `keys`.
    public func sessionsEnded(keys: [String]) async throws -> Date? {
        guard !keys.isEmpty else { return nil }
        return try await connection { connection in
            let rows = try await self.rows(
                "SELECT MAX(valid_after) FROM \(unescaped: self.schema.endedSessions) WHERE key = ANY(\(keys))", on: connection)
            guard let row = rows.first, let seconds = try row.decode(Double?.self) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
    }

    /// `true` the first time `id` is seen (until `expiresAt`), for every instance on this database.
    public func consumeEventID(_ id: String, expiresAt: Date) async throws -> Bool {
        try await connection { connection in
            try await self.run("DELETE FROM \(unescaped: self.schema.seenEvents) WHERE expires_at < \(Date().timeIntervalSince1970)", on: connection)
            return try await !self.rows(
                """
                INSERT INTO \(unescaped: self.schema.seenEvents) (id, expires_at) VALUES (\(id), \(expiresAt.timeIntervalSince1970))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """,
                on: connection
            ).isEmpty
        }
    }

    /// Forgets signed-out sessions that expired before `date`.
    public func removeRevokedSessions(expiredBefore date: Date) async throws {
        try await connection { connection in
            try await self.run("DELETE FROM \(unescaped: self.schema.revokedSessions) WHERE expires_at < \(date.timeIntervalSince1970)", on: connection)
        }
    }

    /// Every session-signing key, oldest first.
    public func sessionKeys() async throws -> [SessionKeyRecord] {
        try await connection { connection in
            try await self.rows("SELECT kid, private_key, created_at FROM \(unescaped: self.schema.sessionKeys) ORDER BY created_at", on: connection)
                .map { row in
                    let (kid, key, created) = try row.decode((String, ByteBuffer, Double).self)
                    return SessionKeyRecord(keyID: kid, privateKey: Array(buffer: key), createdAt: Date(timeIntervalSince1970: created))
                }
        }
    }

    /// Adds a session-signing key.
    public func addSessionKey(_ key: SessionKeyRecord) async throws {
        try await connection { connection in
            try await self.run(
                """
                INSERT INTO \(unescaped: self.schema.sessionKeys) (kid, private_key, created_at)
                VALUES (\(key.keyID), \(ByteBuffer(bytes: key.privateKey)), \(key.createdAt.timeIntervalSince1970))
                """,
                on: connection)
        }
    }

    /// Removes a session-signing key.
    public func removeSessionKey(keyID: String) async throws {
        try await connection { connection in
            try await self.run("DELETE FROM \(unescaped: self.schema.sessionKeys) WHERE kid = \(keyID)", on: connection)
        }
    }

    // MARK: Rows

    /// Locks the user's row for the transaction (`SELECT … FOR UPDATE`), serializing
    /// concurrent changes to one user's identities; `user_not_found` when absent and required.
    @discardableResult
    private func lockUser(_ uid: String, on connection: PostgresConnection, required: Bool = true) async throws -> Bool {
        let found = try await !rows("SELECT uid FROM \(unescaped: schema.users) WHERE uid = \(uid) FOR UPDATE", on: connection).isEmpty
        if !found && required { throw FederateError(.userNotFound, "no user with this uid") }
        return found
    }

    private func insert(_ identity: ProviderIdentity, uid: String, on connection: PostgresConnection) async throws {
        try await run(
            """
            INSERT INTO \(unescaped: schema.identities) (user_uid, provider_id, subject, email, email_verified, display_name, photo_url,
                username, linked_at, access_token, refresh_token)
            VALUES (\(uid), \(identity.providerID), \(identity.subject), \(identity.email), \(identity.emailVerified),
                \(identity.profile.displayName), \(identity.profile.photoURL), \(identity.profile.username),
                \(identity.linkedAt.timeIntervalSince1970), \(identity.tokens.accessToken), \(identity.tokens.refreshToken))
            """,
            on: connection)
    }

    private func users(where condition: PostgresQuery, on connection: PostgresConnection) async throws -> [User] {
        var query = condition
        query.sql = "\(schema.userSelect) WHERE \(condition.sql) \(schema.userOrder)"
        var users: [User] = []
        for row in try await rows(query, on: connection) {
            let cells = row.makeRandomAccess()
            let uid = try cells["uid"].decode(String.self)
            if users.last?.uid != uid {
                users.append(User(
                    uid: uid, email: try cells["email"].decode(String?.self), emailVerified: try cells["email_verified"].decode(Bool.self),
                    displayName: try cells["display_name"].decode(String?.self), photoURL: try cells["photo_url"].decode(String?.self),
                    disabled: try cells["disabled"].decode(Bool.self), createdAt: Date(timeIntervalSince1970: try cells["created_at"].decode(Double.self)),
                    lastSignInAt: try cells["last_sign_in_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
                    tokensValidAfter: try cells["tokens_valid_after"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
                    identities: []))
            }
            if let providerID = try cells["i_provider_id"].decode(String?.self), let subject = try cells["i_subject"].decode(String?.self),
                let linkedAt = try cells["i_linked_at"].decode(Double?.self)
            {
                let email = try cells["i_email"].decode(String?.self)
                users[users.count - 1].identities.append(ProviderIdentity(
                    providerID: providerID, subject: subject, email: email, emailVerified: try cells["i_email_verified"].decode(Bool?.self) ?? false,
                    profile: ProviderProfile(
                        displayName: try cells["i_display_name"].decode(String?.self), email: email,
                        photoURL: try cells["i_photo_url"].decode(String?.self), username: try cells["i_username"].decode(String?.self)),
                    linkedAt: Date(timeIntervalSince1970: linkedAt),
                    tokens: ProviderTokens(
                        accessToken: try cells["i_access_token"].decode(String?.self), refreshToken: try cells["i_refresh_token"].decode(String?.self))))
            }
        }
        return users
    }
}
