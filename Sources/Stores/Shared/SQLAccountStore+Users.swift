package import FederateAccounts
package import FederateTokens

/// Finding, creating, updating and deleting users.
extension SQLAccountStore {
    /// The user with `uid`, with identities.
    package func user(uid: String) async throws(FederateError) -> User? {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.users(where: "u.uid = \(uid)", on: connection).first
        }
    }

    /// The user who owns the identity (`providerID`, `subject`).
    package func user(providerID: String, subject: String) async throws(FederateError) -> User? {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.users(
                where: "u.uid = (SELECT user_uid FROM \(table: .identities) WHERE provider_id = \(providerID) AND subject = \(subject))",
                on: connection
            ).first
        }
    }

    /// The users whose normalized email matches, oldest first.
    package func users(email: String) async throws(FederateError) -> [User] {
        let normalized = User.normalizedEmail(email)
        return try await withConnection { (connection) async throws(FederateError) in
            try await self.users(where: "u.email_normalized = \(normalized)", on: connection)
        }
    }

    /// Inserts a user with its identities; unique violations become account errors.
    package func createUser(_ user: User) async throws(FederateError) {
        if dialect.writesInCommonTableExpressions, user.identities.count == 1, let identity = user.identities.first {
            // The common case in one statement (one round trip, atomic on its own).
            try await withConnection { (connection) async throws(FederateError) in
                try await self.execute(
                    """
                    WITH new_user AS (
                        INSERT INTO \(table: .users) (\(Self.userColumns)) VALUES (\(Self.userValues(user))) RETURNING uid
                    )
                    INSERT INTO \(table: .identities) (user_uid, \(Self.identityColumns))
                    SELECT uid, \(Self.identityValues(identity)) FROM new_user
                    """,
                    on: connection)
            }
        } else {
            try await withTransaction { (connection) async throws(FederateError) in
                try await self.insertUserRow(user, on: connection)
                for identity in user.identities { try await self.insert(identity, uid: user.uid, on: connection) }
            }
        }
    }

    /// Changes the columns `update` names and no other (`UserUpdate`), in one statement:
    /// every expression reads the row as it is when the statement runs (PostgreSQL: under
    /// its row lock; SQLite: under the file's write lock).
    package func updateUser(uid: String, _ update: UserUpdate) async throws(FederateError) {
        var assignments: [SQLQuery] = []
        if let email = update.email {
            let key: SQLQuery = email.verified ? "\(User.normalizedEmail(email.address))" : "NULL"
            if update.emailOnlyIfNone {
                assignments += [
                    "email = CASE WHEN email IS NULL THEN \(email.address) ELSE email END",
                    "email_normalized = CASE WHEN email IS NULL THEN \(key) ELSE email_normalized END",
                    "email_verified = CASE WHEN email IS NULL THEN \(email.verified) ELSE email_verified END",
                ]
            } else {
                assignments += ["email = \(email.address)", "email_normalized = \(key)", "email_verified = \(email.verified)"]
            }
        }
        if let name = update.displayNameIfNone { assignments.append("display_name = COALESCE(display_name, \(name))") }
        if let photo = update.photoURLIfNone { assignments.append("photo_url = COALESCE(photo_url, \(photo))") }
        if let disabled = update.disabled { assignments.append("disabled = \(disabled)") }
        if let validAfter = update.tokensValidAfter {
            // Only ever forward; the stored value may be NULL.
            assignments.append(
                "tokens_valid_after = \(unescaped: dialect.greatest)(COALESCE(tokens_valid_after, \(validAfter)), \(validAfter))")
        }
        let set: SQLQuery = assignments.isEmpty ? "uid = uid" : SQLQuery(joining: assignments, separator: ", ")
        let statement: SQLQuery = "UPDATE \(table: .users) SET \(set) WHERE uid = \(uid) RETURNING uid"
        let found: Bool
        if update.mayEndSessions {
            found = try await revoking { (connection) async throws(FederateError) in try await self.returnsRow(statement, on: connection) }
        } else {
            found = try await withConnection { (connection) async throws(FederateError) in
                try await self.returnsRow(statement, on: connection)
            }
        }
        guard found else { throw FederateError(.userNotFound, "no user with this uid") }
    }

    /// Deletes the user and everything held about them, in one transaction; returns what was deleted.
    package func deleteUser(uid: String) async throws(FederateError) -> DeletedUser? {
        try await revoking { (connection) async throws(FederateError) in try await self.erase(uid, on: connection) }
    }

    /// Deletes user `uid` and everything held about them, in the caller's write transaction:
    /// their kept tokens, the ends of their identities' sessions, their signed-out sessions,
    /// the merges pending into them, their passkeys, their identities and their row. `nil` when absent (or,
    /// with `onlyGuest`, no longer a guest: a link upgraded it).
    func erase(_ uid: String, onlyGuest: Bool = false, on connection: Connection) async throws(FederateError) -> DeletedUser? {
        guard try await lockUser(uid, on: connection), let user = try await users(where: "u.uid = \(uid)", on: connection).first,
            user.isGuest || !onlyGuest
        else { return nil }
        let identities: SQLQuery = "SELECT provider_id, subject FROM \(table: .identities) WHERE user_uid = \(uid)"
        let kept = try await keptTokens(ofIdentitiesIn: identities, on: connection)
        try await execute("DELETE FROM \(table: .providerTokens) WHERE (provider_id, subject) IN (\(identities))", on: connection)
        let ended = user.identities.map { SessionProvider.identityKey(providerID: $0.providerID, subject: $0.subject) }
        if !ended.isEmpty { try await execute("DELETE FROM \(table: .endedSessions) WHERE key IN (\(list: ended))", on: connection) }
        try await execute("DELETE FROM \(table: .revokedSessions) WHERE uid = \(uid)", on: connection)
        try await execute("DELETE FROM \(table: .merges) WHERE target_uid = \(uid)", on: connection)
        try await execute("DELETE FROM \(table: .passkeys) WHERE user_uid = \(uid)", on: connection)
        try await execute("DELETE FROM \(table: .identities) WHERE user_uid = \(uid)", on: connection)
        try await execute("DELETE FROM \(table: .users) WHERE uid = \(uid)", on: connection)
        return DeletedUser(user: user, keptTokens: kept)
    }

    /// Whether the user exists; in a write transaction, their row stays as it is until
    /// the transaction ends (``SQLDialect/userRowLock``), so concurrent changes to one
    /// user's identities run one after the other.
    func lockUser(_ uid: String, on connection: Connection) async throws(FederateError) -> Bool {
        try await returnsRow("SELECT uid FROM \(table: .users) WHERE uid = \(uid) \(unescaped: dialect.userRowLock)", on: connection)
    }
}
