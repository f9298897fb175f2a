package import FederateAccounts
package import FederateTokens
package import Foundation

/// Guests that expired, merges, and what an export reads.
extension SQLAccountStore {
    /// Deletes up to `limit` guests created before `date`, in one transaction; a guest a link
    /// upgraded meanwhile is not one any more when its row is locked, and stays.
    package func deleteExpiredGuests(createdBefore date: Date, limit: Int) async throws(FederateError) -> [String] {
        try await revoking { (connection) async throws(FederateError) -> [String] in
            let rows = try await self.rows(
                """
                SELECT uid FROM \(table: .users) WHERE guest AND created_at < \(date) ORDER BY created_at \
                LIMIT \(unescaped: String(max(0, limit))) \(unescaped: self.dialect.userRowLock)
                """,
                on: connection)
            var deleted: [String] = []
            for row in rows {
                // A guest that linked since it was selected is no guest now, and stays.
                guard let uid = try row.text("uid"), try await self.erase(uid, onlyGuest: true, on: connection) != nil else { continue }
                deleted.append(uid)
            }
            return deleted
        }
    }

    /// Whether at least `count` guests were created after `date`: the `count`-th youngest's row
    /// exists, read without counting past it.
    package func hasGuests(atLeast count: Int, createdAfter date: Date) async throws(FederateError) -> Bool {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.returnsRow(
                """
                SELECT uid FROM \(table: .users) WHERE guest AND created_at > \(date) ORDER BY created_at \
                LIMIT 1 OFFSET \(unescaped: String(max(0, count - 1)))
                """,
                on: connection)
        }
    }

    /// Merges `sourceUID` into `targetUID` in one transaction that locks both users' rows,
    /// in byte order of their uids (so two merges of one pair in opposite directions never
    /// deadlock): checks, moves the identities (their kept tokens are keyed by identity and
    /// follow) and the passkeys, hands the merges pending into the source on to the target, erases the source,
    /// records the merge as pending, and advances the revocation epoch.
    package func mergeUser(
        _ sourceUID: String, into targetUID: String, ifIdentity providerID: String, subject: String, belongsTo ownerUID: String,
        at date: Date
    ) async throws(FederateError) -> AccountMerge {
        guard !sourceUID.exactlyEquals(targetUID) else {
            throw FederateError(.invalidMergeTicket, "an account cannot be merged into itself")
        }
        return try await revoking { (connection) async throws(FederateError) -> AccountMerge in
            for uid in [sourceUID, targetUID].sorted(by: { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }) {
                guard try await self.lockUser(uid, on: connection) else {
                    throw FederateError(.userNotFound, "an account of the merge no longer exists")
                }
            }
            let users = try await self.users(where: "u.uid IN (\(list: [sourceUID, targetUID]))", on: connection)
            guard users.count == 2 else { throw FederateError(.userNotFound, "an account of the merge no longer exists") }
            guard users.allSatisfy({ !$0.disabled }) else { throw FederateError(.userDisabled, "an account of the merge is disabled") }
            let owner = try await self.rows(
                "SELECT user_uid FROM \(table: .identities) WHERE provider_id = \(providerID) AND subject = \(subject)", on: connection
            ).first?.text("user_uid")
            guard owner?.exactlyEquals(ownerUID) == true else {
                throw FederateError(.credentialAlreadyInUse, "the identity of the merge ticket no longer belongs to the account it named")
            }
            if let clash = try await self.rows(
                """
                SELECT s.provider_id FROM \(table: .identities) s JOIN \(table: .identities) t ON t.provider_id = s.provider_id
                WHERE s.user_uid = \(sourceUID) AND t.user_uid = \(targetUID)
                """,
                on: connection
            ).first?.text("provider_id") {
                throw FederateError(.providerAlreadyLinked, "both accounts have a \(clash) identity: unlink one first")
            }
            try await self.execute("UPDATE \(table: .identities) SET user_uid = \(targetUID) WHERE user_uid = \(sourceUID)", on: connection)
            try await self.execute("UPDATE \(table: .passkeys) SET user_uid = \(targetUID) WHERE user_uid = \(sourceUID)", on: connection)
            try await self.execute(
                """
                UPDATE \(table: .users) SET guest = \(false)
                WHERE uid = \(targetUID) AND guest AND (EXISTS (SELECT 1 FROM \(table: .identities) WHERE user_uid = \(targetUID))
                    OR EXISTS (SELECT 1 FROM \(table: .passkeys) WHERE user_uid = \(targetUID)))
                """,
                on: connection)
            try await self.execute("UPDATE \(table: .merges) SET target_uid = \(targetUID) WHERE target_uid = \(sourceUID)", on: connection)
            _ = try await self.erase(sourceUID, on: connection)
            try await self.execute(
                "INSERT INTO \(table: .merges) (source_uid, target_uid, merged_at) VALUES (\(sourceUID), \(targetUID), \(date))",
                on: connection)
            return AccountMerge(sourceUID: sourceUID, targetUID: targetUID, mergedAt: date)
        }
    }

    /// The merges whose hook has not finished, oldest first.
    package func pendingMerges() async throws(FederateError) -> [AccountMerge] {
        try await withConnection { (connection) async throws(FederateError) in
            try Self.merges(
                in: try await self.rows(
                    "SELECT source_uid, target_uid, merged_at FROM \(table: .merges) ORDER BY merged_at", on: connection))
        }
    }

    /// Forgets the pending merge of `sourceUID`.
    package func finishMerge(sourceUID: String) async throws(FederateError) {
        try await withConnection { (connection) async throws(FederateError) in
            try await self.execute("DELETE FROM \(table: .merges) WHERE source_uid = \(sourceUID)", on: connection)
        }
    }

    /// Everything held about `uid`, read in one transaction.
    package func accountRecords(uid: String) async throws(FederateError) -> AccountRecords? {
        try await withTransaction { (connection) async throws(FederateError) -> AccountRecords? in
            guard let user = try await self.users(where: "u.uid = \(uid)", on: connection).first else { return nil }
            let kept = try await self.keptTokens(
                ofIdentitiesIn: "SELECT provider_id, subject FROM \(table: .identities) WHERE user_uid = \(uid)", on: connection)
            var sessions: [AccountRecords.SignedOutSession] = []
            for row in try await self.rows(
                "SELECT sid, expires_at FROM \(table: .revokedSessions) WHERE uid = \(uid) ORDER BY expires_at", on: connection)
            {
                if let sid = try row.text("sid"), let expiresAt = try row.date("expires_at") {
                    sessions.append(AccountRecords.SignedOutSession(sessionID: sid, expiresAt: expiresAt))
                }
            }
            let merges = try Self.merges(
                in: try await self.rows(
                    "SELECT source_uid, target_uid, merged_at FROM \(table: .merges) WHERE target_uid = \(uid) ORDER BY merged_at",
                    on: connection))
            return AccountRecords(
                user: user, keptTokens: kept, signedOutSessions: sessions, pendingMerges: merges,
                passkeys: try await self.passkeys(uid: uid, on: connection))
        }
    }

    private static func merges(in rows: [Connection.Row]) throws(FederateError) -> [AccountMerge] {
        var merges: [AccountMerge] = []
        for row in rows {
            guard let source = try row.text("source_uid"), let target = try row.text("target_uid"), let date = try row.date("merged_at")
            else {
                throw FederateError(.accountStoreFailed, "a merge row lacks a column")
            }
            merges.append(AccountMerge(sourceUID: source, targetUID: target, mergedAt: date))
        }
        return merges
    }
}
