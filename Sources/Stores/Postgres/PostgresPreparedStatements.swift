import FederateSQLStore
import FederateTokens
import NIOCore
import PostgresNIO
import Synchronization

/// The statements each pooled connection has prepared, so PostgreSQL parses and plans each
/// of the store's statements once per connection instead of on every run (parsing and
/// planning were half the server's work per sign-in; `pgbench` runs a sign-in's statements
/// twice as fast prepared).
///
/// A connection is only ever used by one operation at a time (the pool leases it), so two
/// preparations of one statement on one connection never race.
final class PostgresPreparedStatements: Sendable {
    /// At most this many statements are prepared per connection (more run unprepared), and
    /// this many connections remembered (past it the oldest is forgotten: a connection the
    /// pool closed is never asked for again).
    static let statementsPerConnection = 64
    static let connections = 256

    private struct Prepared {
        var byConnection: [PostgresConnection.ID: [String: PreparedQuery]] = [:]
        var order: [PostgresConnection.ID] = []
    }

    private let prepared = Mutex(Prepared())

    /// `sql`, prepared on `connection` (now, the first time); `nil` when the connection has
    /// as many statements prepared as it may keep.
    func statement(_ sql: String, on connection: PostgresConnection) async throws -> PreparedQuery? {
        let (kept, full) = prepared.withLock { prepared in
            let statements = prepared.byConnection[connection.id]
            return (statements?[sql], (statements?.count ?? 0) >= Self.statementsPerConnection)
        }
        if let kept { return kept }
        if full { return nil }
        let statement = try await connection.prepare(query: sql).get()
        prepared.withLock { prepared in
            if prepared.byConnection[connection.id] == nil {
                if prepared.order.count >= Self.connections { prepared.byConnection[prepared.order.removeFirst()] = nil }
                prepared.order.append(connection.id)
            }
            prepared.byConnection[connection.id, default: [:]][sql] = statement
        }
        return statement
    }

    /// Forgets what `connection` prepared: after an error saying a statement is gone or its
    /// plan no longer fits (a `DISCARD ALL`, a schema change), the next run prepares again.
    func forget(_ connection: PostgresConnection) {
        prepared.withLock { prepared in
            prepared.byConnection[connection.id] = nil
            prepared.order.removeAll { $0 == connection.id }
        }
    }
}
