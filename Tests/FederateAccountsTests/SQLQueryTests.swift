import FederatePostgres
@testable import FederateSQLStore
import FederateSQLite
import Foundation
import Testing

/// The shared SQL stores' statements: one text, rendered in each dialect.
@Suite("SQL store statements")
struct SQLQueryTests {
    static let sqlite = SQLDialect.sqlite
    static let postgres = SQLDialect.postgres(schema: "s")

    @Test func valuesBecomePlaceholdersInOrderAndTablesAreQualified() {
        let email: String? = nil
        let inner: SQLQuery = "subject = \(Date(timeIntervalSince1970: 2))"
        let query: SQLQuery =
            "UPDATE \(table: .identities) SET email = \(email), ok = \(true) WHERE \(inner) AND key IN (\(list: ["a", "b"]))"
        let values: [SQLValue] = [.text(nil), .bool(true), .real(2), .text("a"), .text("b")]
        #expect(query.rendered(in: Self.sqlite) == ("UPDATE identities SET email = ?, ok = ? WHERE subject = ? AND key IN (?, ?)", values))
        #expect(
            query.rendered(in: Self.postgres) == (
                "UPDATE \"s\".identities SET email = $1, ok = $2 WHERE subject = $3 AND key IN ($4, $5)", values
            ))
    }

    @Test func interpolatedTextIsAlwaysAValue() {
        let hostile = "x'; DROP TABLE users; --"
        let query: SQLQuery = "SELECT uid FROM \(table: .users) WHERE uid = \(hostile) \(unescaped: Self.postgres.userRowLock)"
        #expect(query.rendered(in: Self.postgres) == ("SELECT uid FROM \"s\".users WHERE uid = $1 FOR UPDATE", [.text(hostile)]))
    }

    @Test func joinedPiecesKeepTheirValues() {
        let one = "1"
        let query = SQLQuery(joining: ["a = \(one)", "b = b", "c = \(bytes: [1, 2])"], separator: ", ")
        #expect(query.rendered(in: Self.postgres) == ("a = $1, b = b, c = $2", [.text("1"), .bytes([1, 2])]))
    }
}
