import Federate
import Foundation

/// A provider that must never be called: `accessToken` of a fresh kept token reads the store
/// and opens the sealed tokens, nothing else. Any call ends the benchmark.
struct UntouchableProvider: SignInProvider {
    let providerID = "oidc.bench"

    func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        fatalError("the benchmark touched the provider")
    }

    func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        fatalError("the benchmark touched the provider")
    }

    func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        fatalError("the benchmark touched the provider")
    }
}

/// `accessToken(for:providerID:)` with fresh kept tokens, per second: `users` accounts signed
/// in through the untouchable provider (tokens valid a day), asked round-robin by `concurrency`
/// tasks for at least `duration` seconds.
func accessTokenRate(store: any AccountStore, users: Int = 100, concurrency: Int, duration: Double) async throws -> Double {
    let vault = try ProviderTokenVault(
        keys: try SealingKeyRing(parsing: "bench:" + Data(repeating: 7, count: 32).base64EncodedString()),
        providers: [UntouchableProvider()])
    let accounts = AccountService(store: store, providerTokens: vault)
    var uids: [String] = []
    let expiry = Date().addingTimeInterval(86_400)
    for index in 0..<users {
        let tokens = ProviderTokens(
            accessToken: "access-\(index)-" + String(repeating: "x", count: 800), refreshToken: "refresh-\(index)",
            accessTokenExpiresAt: expiry)
        let credential = Credential(providerID: "oidc.bench", subject: "bench-\(concurrency)-\(index)", tokens: tokens)
        uids.append(try await accounts.signIn(with: credential).user.uid)
    }
    let ids = uids
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while seconds(start.duration(to: clock.now)) < duration {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: 1_000, by: concurrency) {
                        _ = try await accounts.accessToken(for: ids[index % ids.count], providerID: "oidc.bench")
                    }
                }
            }
            try await group.waitForAll()
        }
        count += 1_000
    }
    return Double(count) / seconds(start.duration(to: clock.now))
}
