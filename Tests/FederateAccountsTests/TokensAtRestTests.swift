import FederateTestSupport
import Federate
import FederatePostgres
import FederateSQLStore
import FederateSQLite
import Foundation
import Testing

extension AccountsTests {
    /// Provider tokens at rest: every token the account layer stores is sealed in the
    /// identity's provider-token record (also for providers whose tokens are not kept for
    /// use), none is left in the clear in the identities table, the SQLite file or its WAL;
    /// without a vault none is stored; the plaintext rows of a 0.1 store are sealed by
    /// `sealPlaintextProviderTokens` and still revoked when the account is deleted.
    @Suite("Accounts: provider tokens sealed at rest (every store)")
    struct TokensAtRestTests {
        static let keys = try! SealingKeyRing([.init(id: "rest", base64: Data(repeating: 3, count: 32).base64EncodedString())])

        static func vault() throws -> ProviderTokenVault { try ProviderTokenVault(keys: keys) }

        @Test(arguments: StoreKind.allCases)
        func everyStoredTokenIsSealedAndComesBackForRevocation(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store, providerTokens: try Self.vault())
                let access = "at-\(UUID().uuidString)", refresh = "rt-\(UUID().uuidString)"
                let ann = try await accounts.signIn(
                    with: TestCredential.make("google.com", "g-1", accessToken: access, refreshToken: refresh))
                let uid = ann.user.uid
                #expect(try await accounts.user(uid: uid).identities.allSatisfy { $0.plaintextTokens.isEmpty })
                let record = try #require(try await store.keptTokens(uid: uid, providerID: "google.com"))
                #expect(record.keyID == "rest")
                let sealedText = String(decoding: record.sealed, as: UTF8.self)
                #expect(!sealedText.contains(access) && !sealedText.contains(refresh))

                // A sign-in without a refresh token (Google's second consent) keeps the sealed one.
                let newer = "at-\(UUID().uuidString)"
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", accessToken: newer))
                let revocable = try await accounts.deleteUser(uid: uid)
                #expect(revocable.map(\.tokens) == [ProviderTokens(accessToken: newer, refreshToken: refresh)])
                #expect(revocable.first?.providerID == "google.com")
            }
        }

        @Test(arguments: StoreKind.allCases)
        func withoutAVaultNoTokenIsStored(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store)
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", refreshToken: "rt-never-stored"))
                #expect(try await store.keptTokens(uid: ann.user.uid, providerID: "google.com") == nil)
                #expect(try await accounts.user(uid: ann.user.uid).identities.allSatisfy { $0.plaintextTokens.isEmpty })
                #expect(try await accounts.deleteUser(uid: ann.user.uid).isEmpty)
            }
        }

        /// The SQLite file and its WAL never hold a token in the clear: after sign-ins, and after
        /// a 0.1 store's plaintext rows are sealed.
        @Test func sqliteFileAndWALHoldNoTokenInTheClear() async throws {
            try await TestSQLite.withFile { path in
                let store = try await SQLiteAccountStore.open(path: path)
                let accounts = AccountService(store: store, providerTokens: try Self.vault())
                let fresh = "rt-fresh-\(UUID().uuidString)"
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", refreshToken: fresh))
                #expect(!(try Self.fileHolds(path, fresh)))

                // A 0.1 row: the refresh token in the clear, as that release wrote it.
                let legacy = "rt-legacy-\(UUID().uuidString)"
                _ = try await accounts.link(ann.user.uid, with: TestCredential.make("apple.com", "a-1", accessToken: nil))
                try await Self.writePlaintext(store, providerID: "apple.com", subject: "a-1", refreshToken: legacy)
                #expect(try Self.fileHolds(path, legacy), "the test wrote it in the clear")

                #expect(try await accounts.sealPlaintextProviderTokens() == 1)
                #expect(try await accounts.sealPlaintextProviderTokens() == 0)
                #expect(!(try Self.fileHolds(path, legacy)), "neither the file nor its WAL keeps it")
                try await store.close()
                #expect(!(try Self.fileHolds(path, legacy)))
            }
        }

        /// A 0.1 store's plaintext tokens: sealed into the identity's record and cleared (or only
        /// cleared without a vault); a record already there is kept; a deletion before the
        /// migration still returns them for revocation.
        @Test(arguments: [StoreKind.sqlite, .postgres])
        func plaintextRowsOfAnOlderStoreAreSealed(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store, providerTokens: try Self.vault())
                let plain = AccountService(store: store)
                let ann = try await plain.signIn(with: TestCredential.make("google.com", "g-1", accessToken: nil))
                _ = try await plain.link(ann.user.uid, with: TestCredential.make("apple.com", "a-1", accessToken: nil))
                let bob = try await plain.signIn(with: TestCredential.make("google.com", "g-2", accessToken: nil))
                let carol = try await accounts.signIn(with: TestCredential.make("google.com", "g-3", refreshToken: "rt-carol-sealed"))
                try await Self.writePlaintext(
                    store, providerID: "google.com", subject: "g-1", accessToken: "at-ann", refreshToken: "rt-ann")
                try await Self.writePlaintext(store, providerID: "apple.com", subject: "a-1", refreshToken: "rt-ann-apple")
                try await Self.writePlaintext(store, providerID: "google.com", subject: "g-2", refreshToken: "rt-bob")
                try await Self.writePlaintext(store, providerID: "google.com", subject: "g-3", refreshToken: "rt-carol-plain")

                // Before the migration a deletion returns bob's plaintext tokens.
                #expect(try await accounts.deleteUser(uid: bob.user.uid).map(\.tokens) == [ProviderTokens(refreshToken: "rt-bob")])

                #expect(try await accounts.sealPlaintextProviderTokens(batchSize: 2) == 2)
                #expect(try await accounts.sealPlaintextProviderTokens(batchSize: 2) == 1)
                #expect(try await accounts.sealPlaintextProviderTokens(batchSize: 2) == 0)
                #expect(try await store.plaintextProviderTokens(limit: 10).isEmpty)
                for uid in [ann.user.uid, carol.user.uid] {
                    #expect(try await accounts.user(uid: uid).identities.allSatisfy { $0.plaintextTokens.isEmpty })
                }

                let annTokens = try await accounts.deleteUser(uid: ann.user.uid)
                #expect(
                    Set(annTokens.map { "\($0.providerID) \($0.tokens.accessToken ?? "-") \($0.tokens.refreshToken ?? "-")" })
                        == ["google.com at-ann rt-ann", "apple.com - rt-ann-apple"])
                // Carol's sealed record is newer than her row's plaintext: it stays.
                #expect(try await accounts.deleteUser(uid: carol.user.uid).map(\.tokens.refreshToken) == ["rt-carol-sealed"])
            }
        }

        /// A sign-in before the migration, without a refresh token (Google's second consent): the
        /// sealed record takes the row's refresh token, so nothing is lost.
        @Test(arguments: [StoreKind.sqlite, .postgres])
        func aSignInBeforeTheMigrationKeepsTheRowsRefreshToken(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store, providerTokens: try Self.vault())
                let ann = try await AccountService(store: store).signIn(with: TestCredential.make("google.com", "g-1", accessToken: nil))
                try await Self.writePlaintext(
                    store, providerID: "google.com", subject: "g-1", accessToken: "at-old", refreshToken: "rt-old")
                _ = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", accessToken: "at-new"))
                #expect(try await accounts.sealPlaintextProviderTokens() == 1)
                #expect(
                    try await accounts.deleteUser(uid: ann.user.uid).map(\.tokens) == [
                        ProviderTokens(accessToken: "at-new", refreshToken: "rt-old")
                    ])
            }
        }

        /// The 0.1 migration never opens a sealed record: one sealed with a key the ring no longer
        /// has (a rotated sealing key) does not stop it, as it stops re-encryption.
        @Test(arguments: [StoreKind.sqlite, .postgres])
        func theMigrationRunsBesideARecordItsRingCannotOpen(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let before = AccountService(store: store, providerTokens: try Self.vault())
                _ = try await before.signIn(with: TestCredential.make("google.com", "g-1", refreshToken: "rt-sealed"))
                let other = try SealingKeyRing([.init(id: "later", base64: Data(repeating: 4, count: 32).base64EncodedString())])
                let after = AccountService(store: store, providerTokens: try ProviderTokenVault(keys: other))
                let ann = try await AccountService(store: store).signIn(with: TestCredential.make("apple.com", "a-1", accessToken: nil))
                try await Self.writePlaintext(store, providerID: "apple.com", subject: "a-1", refreshToken: "rt-plain")
                #expect(try await after.sealPlaintextProviderTokens() == 1)
                #expect(try await after.sealPlaintextProviderTokens() == 0)
                await expectError(.invalidConfiguration) { try await after.reencryptProviderTokens() }
                #expect(try await after.deleteUser(uid: ann.user.uid).map(\.tokens) == [ProviderTokens(refreshToken: "rt-plain")])
            }
        }

        @Test(arguments: [StoreKind.sqlite, .postgres])
        func withoutAVaultPlaintextRowsAreErased(kind: StoreKind) async throws {
            try await kind.withStore { store in
                let accounts = AccountService(store: store)
                let ann = try await accounts.signIn(with: TestCredential.make("google.com", "g-1", accessToken: nil))
                try await Self.writePlaintext(store, providerID: "google.com", subject: "g-1", refreshToken: "rt-ann")
                #expect(try await accounts.sealPlaintextProviderTokens() == 1)
                #expect(try await store.plaintextProviderTokens(limit: 10).isEmpty)
                #expect(try await store.keptTokens(uid: ann.user.uid, providerID: "google.com") == nil)
                #expect(try await accounts.deleteUser(uid: ann.user.uid).isEmpty)
            }
        }

        /// Writes tokens in the clear on an identity's row, as Federate 0.1 did.
        static func writePlaintext(
            _ store: any AccountStorage, providerID: String, subject: String, accessToken: String? = nil, refreshToken: String?
        ) async throws {
            if let sqlite = store as? SQLiteAccountStore {
                try await writePlaintextSQL(
                    sqlite, providerID: providerID, subject: subject, accessToken: accessToken, refreshToken: refreshToken)
            } else if let postgres = store as? PostgresAccountStore {
                try await writePlaintextSQL(
                    postgres, providerID: providerID, subject: subject, accessToken: accessToken, refreshToken: refreshToken)
            } else {
                Issue.record("not an SQL store: \(type(of: store))")
            }
        }

        static func writePlaintextSQL(
            _ store: some SQLAccountStore, providerID: String, subject: String, accessToken: String?, refreshToken: String?
        ) async throws {
            let dialect = store.dialect
            let sql = """
                UPDATE \(dialect.name(of: .identities)) SET access_token = \(dialect.placeholder(1)), refresh_token = \(dialect.placeholder(2))
                WHERE provider_id = \(dialect.placeholder(3)) AND subject = \(dialect.placeholder(4))
                """
            let values: [SQLValue] = [.text(accessToken), .text(refreshToken), .text(providerID), .text(subject)]
            try await store.withConnection { (connection) async throws(FederateError) in _ = try await connection.rows(sql, values) }
        }

        /// Whether the SQLite file or its WAL holds `text`'s bytes.
        static func fileHolds(_ path: String, _ text: String) throws -> Bool {
            let needle = Array(text.utf8)
            for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
                guard bytes.count >= needle.count else { continue }
                for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
                    if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
                }
            }
            return false
        }
    }
}
