package import FederateAccounts
package import FederateTokens
package import Foundation

/// Sign-ins in one atomic step each: one statement on PostgreSQL, whose writes sit in `WITH`
/// clauses (its result reads the rows as the statement began: its writes are not visible to
/// it), and one transaction on SQLite.
extension SQLAccountStore {
    /// A returning sign-in: the user who owns `latest`'s identity, with
    /// ``User/signedIn(with:at:)`` applied, or `nil`.
    package func recordReturningSignIn(_ latest: ProviderIdentity, at date: Date) async throws(FederateError) -> User? {
        guard dialect.writesInCommonTableExpressions else {
            return try await withTransaction { (connection) async throws(FederateError) in
                guard let user = try await self.users(where: Self.owner(of: latest), on: connection).first else { return nil }
                return try await self.signIn(user, with: latest, at: date, on: connection)
            }
        }
        let (found, written) = try await withConnection { (connection) async throws(FederateError) in
            let rows = try await self.rows(
                """
                WITH \(Self.returningSignIn(latest, at: date))
                \(self.selectUsers(where: Self.owner(of: latest), extra: "EXISTS (SELECT 1 FROM signed_in) AS signed_in"))
                """,
                on: connection)
            return (try Self.users(in: rows).first, try rows.first?.bool("signed_in") == true)
        }
        guard let user = found else { return nil }
        return try Self.signedIn(user, written: written, with: latest, at: date)
    }

    /// A returning sign-in as ``recordReturningSignIn(_:at:)`` records it or, when no user
    /// owns `latest`'s identity, `newUser` (whose one identity is that one) created.
    package func recordSignIn(
        _ latest: ProviderIdentity, at date: Date, orCreate newUser: User
    ) async throws(FederateError)
        -> RecordedSignIn
    {
        let identity = try RecordedSignIn.identity(of: newUser, signingIn: latest)
        guard dialect.writesInCommonTableExpressions else {
            return try await withTransaction { (connection) async throws(FederateError) in
                if let user = try await self.users(where: Self.owner(of: latest), on: connection).first {
                    return .returning(try await self.signIn(user, with: latest, at: date, on: connection))
                }
                try await self.insertUserRow(newUser, on: connection)
                try await self.insert(identity, uid: newUser.uid, on: connection)
                return .created
            }
        }
        // The returning sign-in's writes; else, when no user has the identity, the new user's rows.
        // The result has one row even when no user is found, which says whether one was created.
        let (created, found, written) = try await withConnection { (connection) async throws(FederateError) in
            let rows = try await self.rows(
                """
                WITH \(Self.returningSignIn(latest, at: date)), new_user AS (
                    INSERT INTO \(table: .users) (\(Self.userColumns)) SELECT \(Self.userValues(newUser))
                    WHERE NOT EXISTS (
                        SELECT 1 FROM \(table: .identities) WHERE provider_id = \(latest.providerID) AND subject = \(latest.subject)
                    )
                    RETURNING uid
                ), new_identity AS (
                    INSERT INTO \(table: .identities) (user_uid, \(Self.identityColumns))
                    SELECT uid, \(Self.identityValues(identity)) FROM new_user RETURNING user_uid
                )
                \(self.selectUsers(
                    where: Self.owner(of: latest),
                    extra: "EXISTS (SELECT 1 FROM signed_in) AS signed_in, EXISTS (SELECT 1 FROM new_identity) AS created",
                    evenIfNone: true))
                """,
                on: connection)
            guard let first = rows.first else { throw FederateError(.accountStoreFailed, "PostgreSQL: a sign-in returned no row") }
            var users: [Connection.Row] = []
            for row in rows where try row.text("uid") != nil { users.append(row) }
            return (try first.bool("created") == true, try Self.users(in: users).first, try first.bool("signed_in") == true)
        }
        if created { return .created }
        guard let user = found else { throw FederateError(.accountStoreFailed, "a sign-in neither found nor created the identity's user") }
        return .returning(try Self.signedIn(user, written: written, with: latest, at: date))
    }

    /// The condition on `u.uid` that finds the owner of `latest`'s identity.
    private static func owner(of latest: ProviderIdentity) -> SQLQuery {
        "u.uid = (SELECT user_uid FROM \(table: .identities) WHERE provider_id = \(latest.providerID) AND subject = \(latest.subject))"
    }

    /// The `WITH` clauses of a returning sign-in: `identity` writes the identity's row and
    /// `signed_in` the user's, unless the user is disabled.
    private static func returningSignIn(_ latest: ProviderIdentity, at date: Date) -> SQLQuery {
        """
        identity AS (
            UPDATE \(table: .identities) AS i
            SET \(signInAssignments(latest))
            FROM \(table: .users) AS owner
            WHERE i.provider_id = \(latest.providerID) AND i.subject = \(latest.subject) AND owner.uid = i.user_uid AND NOT owner.disabled
            RETURNING i.user_uid
        ), signed_in AS (
            UPDATE \(table: .users) SET last_sign_in_at = \(date) WHERE uid IN (SELECT user_uid FROM identity) RETURNING uid
        )
        """
    }

    /// `user`, as read in the statement that wrote the sign-in (`written` when it did), as
    /// the sign-in leaves them: a disabled user as found; an enabled one found but not written
    /// means the identity moved or went between the statement's read and its write (a
    /// concurrent unlink or deletion).
    private static func signedIn(_ user: User, written: Bool, with latest: ProviderIdentity, at date: Date) throws(FederateError) -> User {
        guard !user.disabled else { return user }
        guard written, let signedIn = user.signedIn(with: latest, at: date) else { throw noSuchIdentity(latest) }
        return signedIn
    }

    /// Records the sign-in of `user`, just read in this transaction, and returns them as it
    /// leaves them; a disabled user as found, with nothing recorded.
    private func signIn(
        _ user: User, with latest: ProviderIdentity, at date: Date, on connection: Connection
    ) async throws(FederateError)
        -> User
    {
        guard !user.disabled else { return user }
        // One identity per provider per user: the signed-in one is the provider's.
        guard let signedIn = user.signedIn(with: latest, at: date), let identity = signedIn.identity(providerID: latest.providerID) else {
            throw FederateError(.accountStoreFailed, "the store returned a user without the identity looked up")
        }
        guard try await writeSignIn(identity, uid: user.uid, at: date, on: connection) else { throw Self.noSuchIdentity(latest) }
        return signedIn
    }
}
