public import FederateAccounts
import FederateTokens
public import Foundation
import NIOCore
import SQLiteNIO

extension SQLiteAccountStore {
    /// The user with `uid`, with identities.
    public func user(uid: String) async throws -> User? {
        try await locked { try await users(where: "u.uid = ?", [.text(uid)]).first }
    }

    /// The user who owns the identity (`providerID`, `subject`).
    public func user(providerID: String, subject: String) async throws -> User? {
        try await locked {
            try await users(where: "u.uid = (SELECT user_uid FROM identities WHERE provider_id = ? AND subject = ?)", [.text(providerID), .text(subject)]).first
        }
    }

    /// The users whose normalized email matches, oldest first.
    public func users(email: String) async throws -> [User] {
        try await locked { try await users(where: "u.email_normalized = ?", [.text(User.normalizedEmail(email))]) }
    }

    /// Inserts a user with its identities; unique violations become account errors.
    public func createUser(_ user: User) async throws {
        try await transaction {
            try await run(
                """
                INSERT INTO users (uid, email, email_normalized, email_verified, display_name, photo_url, disabled, created_at, last_sign_in_at, tokens_valid_after)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(user.uid)] + Self.userFields(user))
            for identity in user.identities { try await insert(identity, uid: user.uid) }
        }
    }

    /// Changes the columns `update` names and no other (``UserUpdate``), in one statement:
    /// every expression reads the row as it is when the statement runs.
    public func updateUser(uid: String, _ update: UserUpdate) async throws {
        var assignments: [String] = []
        var binds: [SQLiteData] = []
        if let email = update.email {
            let key: SQLiteData = email.verified ? .text(User.normalizedEmail(email.address)) : .null
            if update.emailOnlyIfNone {
                assignments += [
                    "email = CASE WHEN email IS NULL THEN ? ELSE email END",
                    "email_normalized = CASE WHEN email IS NULL THEN ? ELSE email_normalized END",
                    "email_verified = CASE WHEN email IS NULL THEN ? ELSE email_verified END",
                ]
            } else {
                assignments += ["email = ?", "email_normalized = ?", "email_verified = ?"]
            }
            binds += [.text(email.address), key, .bool(email.verified)]
        }
        if let name = update.displayNameIfNone { assignments.append("display_name = COALESCE(display_name, ?)"); binds.append(.text(name)) }
        if let photo = update.photoURLIfNone { assignments.append("photo_url = COALESCE(photo_url, ?)"); binds.append(.text(photo)) }
        if let disabled = update.disabled { assignments.append("disabled = ?"); binds.append(.bool(disabled)) }
        if let validAfter = update.tokensValidAfter {
            assignments.append("tokens_valid_after = MAX(COALESCE(tokens_valid_after, ?), ?)")
            binds += [.date(validAfter), .date(validAfter)]
        }
        let set = assignments.isEmpty ? "uid = uid" : assignments.joined(separator: ", ")
        let updated = try await locked { try await query("UPDATE users SET \(set) WHERE uid = ? RETURNING uid", binds + [.text(uid)]) }
        guard !updated.isEmpty else { throw FederateError(.userNotFound, "no user with this uid") }
    }

    /// Links an identity to a user; the database decides races (`credential_already_in_use`).
    public func addIdentity(_ identity: ProviderIdentity, toUser uid: String) async throws {
        try await transaction {
            guard try await !query("SELECT uid FROM users WHERE uid = ?", [.text(uid)]).isEmpty else {
                throw FederateError(.userNotFound, "no user with this uid")
            }
            try await insert(identity, uid: uid)
        }
    }

    /// Stores the identity's latest data and the user's last sign-in.
    public func recordSignIn(_ identity: ProviderIdentity, uid: String, at date: Date) async throws {
        try await transaction {
            let updated = try await query(
                """
                UPDATE identities SET email = ?, email_verified = ?, display_name = ?, photo_url = ?, username = ?, access_token = ?, refresh_token = ?
                WHERE user_uid = ? AND provider_id = ? AND subject = ? RETURNING user_uid
                """,
                [
                    .optional(identity.email), .bool(identity.emailVerified), .optional(identity.profile.displayName),
                    .optional(identity.profile.photoURL), .optional(identity.profile.username), .optional(identity.tokens.accessToken),
                    .optional(identity.tokens.refreshToken), .text(uid), .text(identity.providerID), .text(identity.subject),
                ])
            guard !updated.isEmpty else { throw FederateError(.noSuchProvider, "the user has no such \(identity.providerID) identity") }
            try await run("UPDATE users SET last_sign_in_at = ? WHERE uid = ?", [.date(date), .text(uid)])
        }
    }

    /// Unlinks a provider, refusing the last one (`last_provider`).
    public func removeIdentity(providerID: String, fromUser uid: String) async throws {
        try await transaction {
            guard try await !query("SELECT uid FROM users WHERE uid = ?", [.text(uid)]).isEmpty else {
                throw FederateError(.userNotFound, "no user with this uid")
            }
            let providers = try await query("SELECT provider_id FROM identities WHERE user_uid = ?", [.text(uid)]).compactMap { $0.column("provider_id")?.string }
            guard providers.contains(providerID) else { throw FederateError(.noSuchProvider, "the user has no \(providerID) identity") }
            guard providers.count > 1 else { throw FederateError(.lastProvider, "\(providerID) is the user's only way to sign in") }
            try await run("DELETE FROM identities WHERE user_uid = ? AND provider_id = ?", [.text(uid), .text(providerID)])
        }
    }

    /// Deletes the user and their identities; returns what was deleted.
    public func deleteUser(uid: String) async throws -> User? {
        try await transaction {
            guard let user = try await users(where: "u.uid = ?", [.text(uid)]).first else { return nil }
            try await run("DELETE FROM identities WHERE user_uid = ?", [.text(uid)])
            try await run("DELETE FROM users WHERE uid = ?", [.text(uid)])
            return user
        }
    }

    /// Remembers a signed-out session.
    public func revokeSession(id sessionID: String, uid: String, expiresAt: Date) async throws {
        try await locked {
            try await run(
                "INSERT INTO revoked_sessions (sid, uid, expires_at) VALUES (?, ?, ?) ON CONFLICT (sid) DO NOTHING",
                [.text(sessionID), .text(uid), .date(expiresAt)])
        }
    }

    /// Whether a session was signed out.
    public func isSessionRevoked(id sessionID: String) async throws -> Bool {
        try await locked { try await !query("SELECT sid FROM revoked_sessions WHERE sid = ?", [.text(sessionID)]).isEmpty }
    }

    /// Forgets signed-out sessions that expired before `date`.
    public func removeRevokedSessions(expiredBefore date: Date) async throws {
        try await locked { try await run("DELETE FROM revoked_sessions WHERE expires_at < ?", [.date(date)]) }
    }

    /// Sets the identity's email state.
    public func updateIdentityEmail(providerID: String, subject: String, email: String?, verified: Bool) async throws {
        try await locked {
            try await run(
                "UPDATE identities SET email = COALESCE(?, email), email_verified = ? WHERE provider_id = ? AND subject = ?",
                [email.map(SQLiteData.text) ?? .null, .bool(verified), .text(providerID), .text(subject)])
        }
    }

    /// Ends the sessions tied to `key` issued before `validAfter` (never moving it back).
    public func endSessions(key: String, validAfter: Date, expiresAt: Date) async throws {
        try await locked {
            try await run(
                """
                INSERT INTO ended_sessions (key, valid_after, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET
                    valid_after = MAX(valid_after, excluded.valid_after), expires_at = MAX(expires_at, excluded.expires_at)
                """,
                [.text(key), .date(validAfter), .date(expiresAt)])
            try await run("DELETE FROM ended_sessions WHERE expires_at < ?", [.date(Date())])
        }
    }

    /// The latest `validAfter` of `keys`.
    public func sessionsEnded(keys: [String]) async throws -> Date? {
        guard !keys.isEmpty else { return nil }
        let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
        return try await locked {
            try await query("SELECT MAX(valid_after) AS latest FROM ended_sessions WHERE key IN (\(marks))", keys.map(SQLiteData.text))
                .first?.column("latest")?.double.map(Date.init(timeIntervalSince1970:))
        }
    }

    /// `true` the first time `id` is seen (until `expiresAt`).
    public func consumeEventID(_ id: String, expiresAt: Date) async throws -> Bool {
        try await locked {
            try await run("DELETE FROM seen_events WHERE expires_at < ?", [.date(Date())])
            return try await !query(
                "INSERT INTO seen_events (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id", [.text(id), .date(expiresAt)]
            ).isEmpty
        }
    }

    /// Every session-signing key, oldest first.
    public func sessionKeys() async throws -> [SessionKeyRecord] {
        try await locked {
            try await query("SELECT kid, private_key, created_at FROM session_keys ORDER BY created_at").compactMap { row in
                guard let kid = row.column("kid")?.string, let blob = row.column("private_key")?.blob,
                    let created = row.column("created_at")?.double
                else { return nil }
                return SessionKeyRecord(keyID: kid, privateKey: Array(buffer: blob), createdAt: Date(timeIntervalSince1970: created))
            }
        }
    }

    /// Adds a session-signing key.
    public func addSessionKey(_ key: SessionKeyRecord) async throws {
        try await locked {
            try await run(
                "INSERT INTO session_keys (kid, private_key, created_at) VALUES (?, ?, ?)",
                [.text(key.keyID), .blob(ByteBuffer(bytes: key.privateKey)), .date(key.createdAt)])
        }
    }

    /// Removes a session-signing key.
    public func removeSessionKey(keyID: String) async throws {
        try await locked { try await run("DELETE FROM session_keys WHERE kid = ?", [.text(keyID)]) }
    }

    // MARK: Rows

    private func insert(_ identity: ProviderIdentity, uid: String) async throws {
        try await run(
            """
            INSERT INTO identities (user_uid, provider_id, subject, email, email_verified, display_name, photo_url, username, linked_at, access_token, refresh_token)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(uid), .text(identity.providerID), .text(identity.subject), .optional(identity.email), .bool(identity.emailVerified),
                .optional(identity.profile.displayName), .optional(identity.profile.photoURL), .optional(identity.profile.username),
                .date(identity.linkedAt), .optional(identity.tokens.accessToken), .optional(identity.tokens.refreshToken),
            ])
    }

    private static func userFields(_ user: User) -> [SQLiteData] {
        [
            .optional(user.email), .optional(user.uniqueEmailKey), .bool(user.emailVerified), .optional(user.displayName),
            .optional(user.photoURL), .bool(user.disabled), .date(user.createdAt), .optionalDate(user.lastSignInAt),
            .optionalDate(user.tokensValidAfter),
        ]
    }

    private func users(where condition: String, _ binds: [SQLiteData]) async throws -> [User] {
        let rows = try await query("\(SQLiteSchema.userSelect) WHERE \(condition) \(SQLiteSchema.userOrder)", binds)
        var users: [User] = []
        for row in rows {
            guard let uid = row.column("uid")?.string, let created = row.column("created_at")?.double else {
                throw FederateError(.accountStoreFailed, "a user row lacks uid or created_at")
            }
            if users.last?.uid != uid {
                users.append(User(
                    uid: uid, email: row.string("email"), emailVerified: row.bool("email_verified"), displayName: row.string("display_name"),
                    photoURL: row.string("photo_url"), disabled: row.bool("disabled"), createdAt: Date(timeIntervalSince1970: created),
                    lastSignInAt: row.date("last_sign_in_at"), tokensValidAfter: row.date("tokens_valid_after"), identities: []))
            }
            if let providerID = row.string("i_provider_id"), let subject = row.string("i_subject"), let linkedAt = row.date("i_linked_at") {
                users[users.count - 1].identities.append(ProviderIdentity(
                    providerID: providerID, subject: subject, email: row.string("i_email"), emailVerified: row.bool("i_email_verified"),
                    profile: ProviderProfile(
                        displayName: row.string("i_display_name"), email: row.string("i_email"), photoURL: row.string("i_photo_url"),
                        username: row.string("i_username")),
                    linkedAt: linkedAt,
                    tokens: ProviderTokens(accessToken: row.string("i_access_token"), refreshToken: row.string("i_refresh_token"))))
            }
        }
        return users
    }
}

extension SQLiteData {
    fileprivate static func optional(_ text: String?) -> SQLiteData { text.map(SQLiteData.text) ?? .null }
    fileprivate static func bool(_ value: Bool) -> SQLiteData { .integer(value ? 1 : 0) }
    fileprivate static func date(_ date: Date) -> SQLiteData { .float(date.timeIntervalSince1970) }
    fileprivate static func optionalDate(_ date: Date?) -> SQLiteData { date.map(SQLiteData.date) ?? .null }
}

extension SQLiteRow {
    fileprivate func string(_ name: String) -> String? {
        guard let data = column(name), !data.isNull else { return nil }
        return data.string
    }

    fileprivate func bool(_ name: String) -> Bool { (column(name)?.integer ?? 0) != 0 }

    fileprivate func date(_ name: String) -> Date? {
        guard let data = column(name), !data.isNull, let seconds = data.double else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
