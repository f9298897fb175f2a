import Federate
import FederatePostgres
import FederateSQLite
import Foundation

extension StoreKind {
    /// Runs `body` with two stores on one database, as two server instances see it: memory,
    /// the same store twice; SQLite, two stores (two connections) on one file; PostgreSQL, two
    /// pools on one schema.
    func withStorePair<T>(_ body: (any AccountStorage, any AccountStorage) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            let store = InMemoryAccountStore()
            return try await body(store, store)
        case .sqlite:
            return try await TestSQLite.withFile { path in
                let one = try await SQLiteAccountStore.open(path: path)
                let two = try await SQLiteAccountStore.open(path: path)
                do {
                    let result = try await body(one, two)
                    try await one.close()
                    try await two.close()
                    return result
                } catch {
                    try? await one.close()
                    try? await two.close()
                    throw error
                }
            }
        case .postgres:
            let schema = TestPostgres.freshSchema()
            let one = try await TestPostgres.store(schema: schema)
            return try await TestPostgres.withSeparateClient { client in
                try await body(one, try await TestPostgres.store(schema: schema, client: client))
            }
        }
    }
}
