public import FederateRelyingParty
public import FederateTokens
import Foundation
import Synchronization

/// How the account layer keeps provider tokens: every provider's tokens that it stores are
/// sealed at rest with a `SealingKeyRing` (the store never sees a token), to revoke them at
/// the provider (RFC 7009, ``SignInProvider/revoke(_:)``) when the identity is unlinked or its
/// user deleted; those of `providers` are also kept for use: refreshed and handed out by
/// ``AccountService/accessToken(for:providerID:)`` through the provider's `ProviderCapabilities.tokenRefresh`.
///
/// ```swift
/// let vault = try ProviderTokenVault(keys: try SealingKeyRing(parsing: keysFromSecretStore), providers: [google, corp])
/// let accounts = AccountService(store: store, providerTokens: vault)
/// ```
///
/// Without a vault the account layer stores no provider tokens at all, and so cannot revoke
/// them when an account is deleted (Apple asks apps to).
public struct ProviderTokenVault: Sendable {
    /// The keys tokens are sealed with.
    package let keys: SealingKeyRing
    /// A kept access token is refreshed when less than this remains of it (60 s by default).
    var refreshLeeway: Duration
    /// How long one instance may take to refresh an identity's tokens before another may take
    /// over (30 s by default). Keep it longer than the provider's token request can take and
    /// than the clock skew between instances: two refreshes with one rotating refresh token
    /// make a strict provider revoke the whole token family.
    var leaseDuration: Duration
    private let providers: [ExactString: any SignInProvider]
    let flights = RefreshFlights()

    /// Seals every provider's tokens with `keys`, and keeps those of `providers` for use.
    /// Throws `invalid_configuration` for two providers with one provider ID.
    public init(
        keys: SealingKeyRing, providers: [any SignInProvider] = [], refreshLeeway: Duration = .seconds(60),
        leaseDuration: Duration = .seconds(30)
    ) throws(FederateError) {
        var byID: [ExactString: any SignInProvider] = [:]
        for provider in providers {
            guard byID.updateValue(provider, forKey: ExactString(provider.providerID)) == nil else {
                throw FederateError(.invalidConfiguration, "two providers with the provider ID \(provider.providerID)")
            }
        }
        self.keys = keys
        self.providers = byID
        self.refreshLeeway = refreshLeeway
        self.leaseDuration = leaseDuration
    }

    /// The provider of `providerID` when its tokens are kept for use.
    package func provider(_ providerID: String) -> (any SignInProvider)? { providers[ExactString(providerID)] }

    /// `tokens` sealed for the identity, as a record to store (its version is set by the store).
    func seal(
        _ tokens: ProviderTokens, providerID: String, subject: String, version: Int64, now: Date
    ) throws(FederateError) -> SealedProviderTokens {
        let (keyID, sealed) = try keys.seal(tokens, providerID: providerID, subject: subject)
        return SealedProviderTokens(
            providerID: providerID, subject: subject, keyID: keyID, sealed: sealed, accessTokenExpiresAt: tokens.accessTokenExpiresAt,
            version: version,
            updatedAt: now)
    }
}

/// The refreshes one process runs, one per identity: concurrent callers for the same identity
/// share one (the store's lease then decides between processes). Each runs in a task of its
/// own, so a caller that is cancelled never leaves a rotated refresh token unstored.
final class RefreshFlights: Sendable {
    private let running = Mutex<[ExactString: Task<Result<String, FederateError>, Never>]>([:])

    /// The result of the refresh running for `key`, or of `body`, started now.
    func run(_ key: String, _ body: @escaping @Sendable () async throws(FederateError) -> String) async throws(FederateError) -> String {
        let task = running.withLock { running in
            if let task = running[ExactString(key)] { return task }
            let task = Task { () async -> Result<String, FederateError> in
                let result: Result<String, FederateError>
                do throws(FederateError) { result = .success(try await body()) } catch { result = .failure(error) }
                return result
            }
            running[ExactString(key)] = task
            return task
        }
        let result = await task.value
        running.withLock { running in if running[ExactString(key)] == task { running[ExactString(key)] = nil } }
        return try result.get()
    }
}
