public import Federate
public import Foundation

/// Verifies back-channel logout tokens a provider POSTs to the relying party.
///
/// The checks of Back-Channel Logout 1.0 §2.6: signature by the provider's keys with an
/// allowed algorithm (never `none`, HMAC only with the configured secret), `iss`, `aud`
/// containing the client, `iat` present and not in the future, `exp` not passed when
/// present, `jti` present, `events` an object with the
/// `http://schemas.openid.net/event/backchannel-logout` member (itself an object), `sub` or
/// `sid`, and no `nonce`. Replays (a `jti` already seen) are the caller's to refuse.
public struct BackChannelLogoutVerifier: Sendable {
    /// The `events` member that marks a logout token.
    public static let logoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// Which issuer, audiences and algorithms are accepted.
    public let policy: IDTokenPolicy
    /// Where the provider's keys come from.
    public let keys: any KeySetProvider

    /// Creates a verifier; use the same policy and keys as for the provider's ID tokens.
    public init(policy: IDTokenPolicy, keys: any KeySetProvider) {
        self.policy = policy
        self.keys = keys
    }

    /// Creates a verifier for an ``OpenIDClient``'s provider and client.
    public init(client: OpenIDClient) {
        self.init(policy: client.policy, keys: client.keys)
    }

    /// Verifies a logout token; `now` is seconds since 1970 (default: the clock).
    public func verify(_ token: String, now: Double? = nil) async throws -> LogoutToken {
        let verified = try await JWTVerifier(policy: policy, keys: keys).verify(token, now: now)
        return try validate(verified.claims)
    }

    /// The logout-token rules on top of ``JWTVerifier``'s (which checked `iss`, `aud`, `iat`, `exp`).
    func validate(_ claims: [String: JSONValue]) throws(FederateError) -> LogoutToken {
        guard case .string(let issuer)? = claims["iss"], let issuedAt = claims["iat"]?.doubleValue else {
            throw FederateError(.invalidLogoutToken, "the logout token lacks 'iss' or 'iat'")
        }
        guard case .string(let tokenID)? = claims["jti"], !tokenID.isEmpty else {
            throw FederateError(.invalidLogoutToken, "the logout token has no 'jti'")
        }
        guard case .object(let events)? = claims["events"], case .object? = events[Self.logoutEvent] else {
            throw FederateError(.invalidLogoutToken, "'events' lacks the back-channel logout event")
        }
        guard claims["nonce"] == nil else {
            throw FederateError(.invalidLogoutToken, "a logout token must not contain 'nonce'")
        }
        let subject = claims["sub"]?.stringValue
        let sessionID = claims["sid"]?.stringValue
        guard subject?.isEmpty == false || sessionID?.isEmpty == false else {
            throw FederateError(.invalidLogoutToken, "the logout token has neither 'sub' nor 'sid'")
        }
        return LogoutToken(
            issuer: issuer, subject: subject, sessionID: sessionID, tokenID: tokenID,
            issuedAt: Date(timeIntervalSince1970: issuedAt), claims: claims)
    }

    /// Handles the POSTed form body (`logout_token=...`): the HTTP answer to send and, when
    /// valid, the token whose sessions the application must end. Valid: 200 with
    /// `Cache-Control: no-store`; anything else: 400 with a JSON error (Back-Channel Logout §2.8).
    public func handle(formBody: [UInt8], now: Double? = nil) async -> BackChannelLogoutResponse {
        do {
            guard let text = String(validating: formBody, as: UTF8.self) else {
                throw FederateError(.invalidRequest, "the body is not UTF-8")
            }
            guard let token = try FormURLEncoding.decode(text)["logout_token"] else {
                throw FederateError(.invalidRequest, "the body has no logout_token")
            }
            return BackChannelLogoutResponse(logoutToken: try await verify(token, now: now), error: nil)
        } catch {
            let failure = error as? FederateError ?? FederateError(.invalidLogoutToken, "the logout token was refused")
            return BackChannelLogoutResponse(logoutToken: nil, error: failure)
        }
    }
}

/// What to answer a back-channel logout request with.
public struct BackChannelLogoutResponse: Sendable {
    /// The verified token, when the request was valid.
    public let logoutToken: LogoutToken?
    /// Why the request was refused, otherwise.
    public let error: FederateError?

    /// 200 when valid, else 400.
    public var status: Int { logoutToken == nil ? 400 : 200 }

    /// `Cache-Control: no-store` always (and `Content-Type` for the error body).
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Cache-Control", "no-store")]
        if error != nil { headers.append(("Content-Type", "application/json")) }
        return headers
    }

    /// Empty when valid; `{"error":"invalid_request","error_description":...}` otherwise.
    public var body: [UInt8] {
        guard let error else { return [] }
        return JSONSerializer.bytes(["error": "invalid_request", "error_description": .string(error.message)])
    }
}
