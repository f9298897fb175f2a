import FederateRelyingParty
import FederateTokens
import Foundation

/// Verifies back-channel logout tokens a provider POSTs to the relying party.
///
/// The checks of Back-Channel Logout 1.0 §2.6: signature by the provider's keys with an
/// allowed algorithm (never `none`, HMAC only with the configured secret), then the
/// logout-token rules (`ClaimRules.logoutToken(issuers:audiences:)`): `typ` absent
/// or `logout+jwt`, `iss`, `aud` containing the client, `iat` and `exp` required, `jti`,
/// `events` with the `http://schemas.openid.net/event/backchannel-logout` member (itself an
/// object), `sub` or `sid`, and no `nonce`. Replays (a `jti` already seen) are the caller's
/// to refuse.
struct BackChannelLogoutVerifier: Sendable {
    /// The `events` member that marks a logout token.
    static let logoutEvent = ClaimRules.backChannelLogoutEvent

    /// Which issuer, audiences and algorithms are accepted.
    let policy: IDTokenPolicy
    /// Where the provider's keys come from.
    let keys: any KeySetProvider
    /// The time tokens are checked at.
    let clock: FederateClock

    /// Creates a verifier; use the same policy, keys and clock as for the provider's ID tokens.
    init(policy: IDTokenPolicy, keys: any KeySetProvider, clock: FederateClock = .system) {
        self.policy = policy
        self.keys = keys
        self.clock = clock
    }

    /// Creates a verifier for an `OpenIDClient`'s provider and client, on its clock.
    init(client: OpenIDClient) {
        self.init(policy: client.policy, keys: client.keys, clock: client.clock)
    }

    /// Verifies a logout token at the ``clock``'s time.
    nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> LogoutToken {
        let verifier = JWTVerifier(
            rules: .logoutToken(issuers: policy.issuers, audiences: policy.audiences), allowedAlgorithms: policy.allowedAlgorithms,
            keys: keys, hmacSecret: policy.hmacSecret, clockTolerance: policy.clockTolerance, clock: clock, limits: policy.limits)
        let token = try await verifier.verify(token)
        return LogoutToken(
            issuer: try token.requiredString("iss"), subject: try token.string("sub").flatMap { $0.isEmpty ? nil : $0 },
            sessionID: try token.string("sid").flatMap { $0.isEmpty ? nil : $0 }, tokenID: try token.requiredString("jti"),
            issuedAt: try token.requiredNumericDate("iat").date, claims: token.claims)
    }

    /// Handles the POSTed form body (`logout_token=...`): the HTTP answer to send and, when
    /// valid, the token whose sessions the application must end. Valid: 200 with
    /// `Cache-Control: no-store`; anything else: 400 with a JSON error (Back-Channel Logout §2.8).
    func handle(formBody: [UInt8]) async -> BackChannelLogoutResponse {
        do throws(FederateError) {
            guard let text = String(validating: formBody, as: UTF8.self) else {
                throw FederateError(.invalidRequest, "the body is not UTF-8")
            }
            guard let token = try FormURLEncoding.decode(text)["logout_token"] else {
                throw FederateError(.invalidRequest, "the body has no logout_token")
            }
            return BackChannelLogoutResponse(logoutToken: try await verify(token), error: nil)
        } catch {
            return BackChannelLogoutResponse(logoutToken: nil, error: error)
        }
    }
}

/// What to answer a back-channel logout request with.
struct BackChannelLogoutResponse: Sendable {
    /// The verified token, when the request was valid.
    let logoutToken: LogoutToken?
    /// Why the request was refused, otherwise.
    let error: FederateError?

    /// 200 when valid, else 400.
    var status: Int { logoutToken == nil ? 400 : 200 }

    /// `Cache-Control: no-store` always (and `Content-Type` for the error body).
    var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-store")]
        if error != nil { headers.append(("Content-Type", "application/json")) }
        return headers
    }

    /// Empty when valid; `{"error":"invalid_request","error_description":...}` otherwise.
    var body: [UInt8] {
        guard let error else { return [] }
        return JSONSerializer.bytes(["error": "invalid_request", "error_description": .string(error.message)])
    }
}
