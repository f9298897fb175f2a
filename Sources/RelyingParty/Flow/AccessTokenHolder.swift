public import FederateTokens
import Foundation
import Synchronization

/// Keeps a user's tokens for calling the provider's APIs on their behalf, refreshing the
/// access token shortly before it expires.
///
/// - One refresh at a time, shared by all concurrent callers.
/// - A refresh that fails with `invalid_grant` surfaces as `FederateError/Code/invalidGrant`:
///   the refresh token is dead; sign the user in again.
/// - Requests are signed with `Authorization: Bearer` (never the `access_token` query
///   parameter, which ends up in logs), or with `Authorization: DPoP` and a proof when the
///   token is DPoP-bound.
public final class AccessTokenHolder: Sendable {
    private struct State {
        var tokens: TokenSet
        var refreshing: Task<Result<TokenSet, FederateError>, Never>?
    }

    private let client: OpenIDClient
    private let leeway: Duration
    private let state: Mutex<State>

    /// Holds `tokens` for `client`; refreshes when less than `leeway` remains (by the
    /// client's `OpenIDClient/clock`).
    public init(client: OpenIDClient, tokens: TokenSet, leeway: Duration = .seconds(60)) {
        self.client = client
        self.leeway = leeway
        self.state = Mutex(State(tokens: tokens))
    }

    /// The tokens held now.
    public var tokens: TokenSet { state.withLock { $0.tokens } }

    /// A valid access token, refreshed first when it is about to expire.
    package func accessToken() async throws(FederateError) -> String {
        let now = client.clock.now
        let task: Task<Result<TokenSet, FederateError>, Never>? = try state.withLock { (state) throws(FederateError) in
            let tokens = state.tokens
            guard let expiresAt = tokens.expiresAt, expiresAt.timeIntervalSince(now) < leeway.inSeconds else { return nil }
            if let refreshing = state.refreshing { return refreshing }
            guard let refreshToken = tokens.refreshToken else {
                throw FederateError(.invalidGrant, "the access token expired and there is no refresh token: sign the user in again")
            }
            let client = self.client
            let task = Task { () async -> Result<TokenSet, FederateError> in
                do throws(FederateError) {
                    return .success(try await client.refresh(refreshToken, previousIDToken: tokens.idTokenClaims))
                } catch {
                    return .failure(error)
                }
            }
            state.refreshing = task
            return task
        }
        guard let task else { return tokens.accessToken }
        do {
            let fresh = try await task.value.get()
            state.withLock { state in
                if state.refreshing == task { state.refreshing = nil }
                state.tokens = TokenSet(
                    accessToken: fresh.accessToken, tokenType: fresh.tokenType, expiresAt: fresh.expiresAt,
                    refreshToken: fresh.refreshToken, idToken: fresh.idToken ?? state.tokens.idToken,
                    idTokenClaims: fresh.idTokenClaims ?? state.tokens.idTokenClaims,
                    grantedScopes: fresh.grantedScopes, refusedScopes: fresh.refusedScopes, response: fresh.response)
            }
            return fresh.accessToken
        } catch {
            state.withLock { state in if state.refreshing == task { state.refreshing = nil } }
            throw error
        }
    }

    /// Returns `request` with `Authorization: Bearer <access token>` set, or, for a
    /// DPoP-bound token, `Authorization: DPoP <access token>` and a `DPoP` proof of the
    /// client's key for this request (RFC 9449 §7.1). After a `use_dpop_nonce` refusal, pass
    /// the response to `DPoPProofSigner/remember(nonceFrom:of:)` and authorize again.
    public func authorize(_ request: HTTPRequest) async throws(FederateError) -> HTTPRequest {
        var request = request
        let token = try await accessToken()
        let scheme = try client.authorizationScheme(for: tokens.tokenType)
        request.headers.removeAll { $0.name.caseInsensitiveEquals("Authorization") || $0.name.caseInsensitiveEquals("DPoP") }
        request.headers.append(("Authorization", scheme + " " + token))
        if scheme == "DPoP", let dpop = client.dpop {
            request.headers.append(("DPoP", try dpop.proof(method: request.method, url: request.url, accessToken: token)))
        }
        return request
    }
}
