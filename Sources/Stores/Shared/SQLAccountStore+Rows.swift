import FederateAccounts
import FederateTokens
import Foundation

/// How users and identities are read from and written to their rows.
extension SQLAccountStore {
    /// The users matching `condition`, with their identities, oldest first; with `clauses`,
    /// the statement starts `WITH clauses` (which `condition` may read).
    func users(where condition: SQLQuery, with clauses: SQLQuery? = nil, on connection: Connection) async throws(FederateError) -> [User] {
        let select = selectUsers(where: condition)
        return try Self.users(
            in: try await rows(clauses.map { (clauses) -> SQLQuery in "WITH \(clauses)\n\(select)" } ?? select, on: connection))
    }

    /// The `SELECT` of the users matching `condition` and their identities: one row per
    /// identity (or one for a user with none), oldest user first, each user's identities in
    /// the order they were linked; with `extra` (`expression AS name`, …) as more columns.
    /// With `evenIfNone`, one row of empty user columns (a `NULL` uid) when no user matches,
    /// so that `extra` is always read.
    func selectUsers(where condition: SQLQuery, extra: SQLQuery? = nil, evenIfNone: Bool = false) -> SQLQuery {
        let more: SQLQuery = extra.map { (extra) -> SQLQuery in ", \(extra)" } ?? ""
        let users: SQLQuery = "\(table: .users) u LEFT JOIN \(table: .identities) i ON i.user_uid = u.uid"
        let from: SQLQuery = evenIfNone ? "(SELECT 1) AS one LEFT JOIN (\(users)) ON \(condition)" : "\(users) WHERE \(condition)"
        return """
            SELECT u.uid, u.email, u.email_verified, u.display_name, u.photo_url, u.disabled, u.created_at, u.last_sign_in_at,
                u.tokens_valid_after, u.guest, i.provider_id AS i_provider_id, i.subject AS i_subject, i.email AS i_email,
                i.email_verified AS i_email_verified, i.display_name AS i_display_name, i.photo_url AS i_photo_url,
                i.username AS i_username, i.linked_at AS i_linked_at, i.access_token AS i_access_token, i.refresh_token AS i_refresh_token\(more)
            FROM \(from) ORDER BY u.created_at, u.uid, i.linked_at, \(unescaped: dialect.identityInsertionOrder)
            """
    }

    /// The users in rows of ``selectUsers(where:extra:)``, decoded.
    static func users(in rows: [Connection.Row]) throws(FederateError) -> [User] {
        var users: [User] = []
        for row in rows {
            guard let uid = try row.text("uid"), let createdAt = try row.date("created_at") else {
                throw FederateError(.accountStoreFailed, "a user row lacks uid or created_at")
            }
            if users.last?.uid != uid {
                users.append(
                    User(
                        uid: uid, email: try row.text("email"), emailVerified: try row.bool("email_verified") ?? false,
                        displayName: try row.text("display_name"), photoURL: try row.text("photo_url"),
                        disabled: try row.bool("disabled") ?? false,
                        createdAt: createdAt, lastSignInAt: try row.date("last_sign_in_at"),
                        tokensValidAfter: try row.date("tokens_valid_after"),
                        isGuest: try row.bool("guest") ?? false, identities: []))
            }
            if let identity = try Self.identity(in: row) { users[users.count - 1].identities.append(identity) }
        }
        return users
    }

    /// The identity in a joined user row (its `i_` columns), or `nil` for a user with none.
    private static func identity(in row: Connection.Row) throws(FederateError) -> ProviderIdentity? {
        guard let providerID = try row.text("i_provider_id"), let subject = try row.text("i_subject"),
            let linkedAt = try row.date("i_linked_at")
        else { return nil }
        let email = try row.text("i_email")
        return ProviderIdentity(
            providerID: providerID, subject: subject, email: email, emailVerified: try row.bool("i_email_verified") ?? false,
            profile: ProviderProfile(
                displayName: try row.text("i_display_name"), email: email, photoURL: try row.text("i_photo_url"),
                username: try row.text("i_username")),
            linkedAt: linkedAt,
            plaintextTokens: ProviderTokens(accessToken: try row.text("i_access_token"), refreshToken: try row.text("i_refresh_token")))
    }

    /// Inserts the user's row (not its identities).
    func insertUserRow(_ user: User, on connection: Connection) async throws(FederateError) {
        try await execute("INSERT INTO \(table: .users) (\(Self.userColumns)) VALUES (\(Self.userValues(user)))", on: connection)
    }

    /// Links `identity` to `uid`: a unique violation is the race's loser.
    func insert(_ identity: ProviderIdentity, uid: String, on connection: Connection) async throws(FederateError) {
        try await execute(
            "INSERT INTO \(table: .identities) (user_uid, \(Self.identityColumns)) VALUES (\(uid), \(Self.identityValues(identity)))",
            on: connection)
    }

    /// The columns of a user's row, in ``userValues(_:)``'s order.
    static var userColumns: SQLQuery {
        "uid, email, email_normalized, email_verified, display_name, photo_url, disabled, created_at, last_sign_in_at, tokens_valid_after, guest"
    }

    /// The values of a user's row.
    static func userValues(_ user: User) -> SQLQuery {
        """
        \(user.uid), \(user.email), \(user.uniqueEmailKey), \(user.emailVerified), \(user.displayName), \(user.photoURL), \(user.disabled), \
        \(user.createdAt), \(user.lastSignInAt), \(user.tokensValidAfter), \(user.isGuest)
        """
    }

    /// The columns of an identity's row but its user, in ``identityValues(_:)``'s order.
    static var identityColumns: SQLQuery {
        "provider_id, subject, email, email_verified, display_name, photo_url, username, linked_at"
    }

    /// The values of an identity's row but its user. Its token columns stay empty: tokens
    /// are sealed in the identity's provider-token record (Federate 0.1 wrote them there).
    static func identityValues(_ identity: ProviderIdentity) -> SQLQuery {
        """
        \(identity.providerID), \(identity.subject), \(identity.email), \(identity.emailVerified), \(identity.profile.displayName), \
        \(identity.profile.photoURL), \(identity.profile.username), \(identity.linkedAt)
        """
    }
}
