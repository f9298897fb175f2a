import FederateTestSupport
import Federate
import FederatePostgres
import FederateSQLite
import Foundation
import Testing

/// The three stores every conformance test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgres

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh store of this kind, cleaning up afterwards.
    func withStore<T>(oneAccountPerEmail: Bool = true, _ body: (any AccountStorage) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(InMemoryAccountStore(oneAccountPerEmail: oneAccountPerEmail))
        case .sqlite:
            return try await TestSQLite.withFile { path in
                let store = try await SQLiteAccountStore.open(path: path, oneAccountPerEmail: oneAccountPerEmail)
                do {
                    let result = try await body(store)
                    try await store.close()
                    return result
                } catch {
                    try? await store.close()
                    throw error
                }
            }
        case .postgres:
            return try await body(try await TestPostgres.store(oneAccountPerEmail: oneAccountPerEmail))
        }
    }

    /// Runs `body` with a service on a fresh store and a test clock.
    func withService<T>(
        oneAccountPerEmail: Bool = true, configuration: AccountServiceConfiguration = .standard, clockBehind: TimeInterval = 0,
        providerTokens: ProviderTokenVault? = nil, _ body: (AccountService, TestClock) async throws -> T
    ) async throws -> T {
        try await withStore(oneAccountPerEmail: oneAccountPerEmail) { store in
            // `clockBehind`: the service's clock starts that far behind real time, for tests that
            // move it forward while a real-time provider reports `auth_time`.
            let clock = TestClock(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - clockBehind).rounded(.down)))
            return try await body(
                AccountService(store: store, configuration: configuration, clock: clock.clock, providerTokens: providerTokens), clock)
        }
    }
}

enum TestSQLite {
    /// A path in a new temporary directory, removed afterwards (with its WAL files).
    static func withFile<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory.appendingPathComponent("accounts.sqlite").path)
    }
}

/// Credentials for tests (the account layer trusts provider ID and subject).
enum TestCredential {
    static func make(
        _ providerID: String, _ subject: String, email: String? = nil, verified: Bool = true, name: String? = nil,
        username: String? = nil, accessToken: String? = "at-\(UUID().uuidString)", refreshToken: String? = nil
    ) -> Credential {
        Credential(
            providerID: providerID, subject: subject, email: email, emailVerified: verified,
            tokens: ProviderTokens(accessToken: accessToken, refreshToken: refreshToken),
            profile: ProviderProfile(
                displayName: name, email: email, photoURL: name.map { "https://example.com/\($0).png" }, username: username))
    }
}

/// Runs `body`, expecting a ``FederateError`` with `code`; returns it.
@discardableResult
func expectError<T>(
    _ code: FederateError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> FederateError? {
    do {
        _ = try await body()
        Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as FederateError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension TestCredential {
    static let secret = HMACSecret(utf8: "account-tests-id-token-secret-32b!")

    /// A credential from a verified ID token (HS256 with a test secret) whose user
    /// authenticated at the provider at `authTime`.
    static func withIDToken(_ providerID: String, _ subject: String, authTime: Date, now: Date) async throws -> Credential {
        let seconds = SafeNumber.clampedInt64(now.timeIntervalSince1970)
        let token = try JWSSigningKey(hmac: secret).sign(
            claims: [
                "iss": "https://idp.example", "aud": "rp", "sub": .string(subject), "iat": .integer(seconds),
                "exp": .integer(seconds + 600),
                "auth_time": .integer(SafeNumber.clampedInt64(authTime.timeIntervalSince1970)),
            ],
            algorithm: .hs256)
        let policy = IDTokenPolicy(issuers: ["https://idp.example"], audiences: ["rp"], allowedAlgorithms: [.hs256], hmacSecret: secret)
        let idToken = try await IDTokenVerifier(policy: policy, keys: JSONWebKeySet.empty, clock: .fixed(at: now)).verify(token)
        return Credential(providerID: providerID, idToken: idToken)
    }
}
