import Federate
import Foundation

/// How the dev provider signs a token it is asked to make wrong on purpose.
enum DevSignature: Sendable, Hashable {
    /// RS256 with the current published RSA key (what a relying party expects).
    case rs256
    /// ES256 with the current published P-256 key.
    case es256
    /// HS256 keyed with `secret` (an algorithm the provider does not advertise).
    case hs256(secret: String)
    /// `alg: none`, no signature.
    case none
}

extension DevProvider {
    /// The back-channel logout event's member name.
    package static let backChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// A back-channel logout token (OpenID Back-Channel Logout 1.0 §2.4) for `clientID`:
    /// `iss`, `aud`, `iat`, `exp`, `jti`, `events` with the logout event, `sub` and/or `sid`.
    /// The parameters make it wrong on purpose: another `audience`, other `events` (`nil`
    /// omits the claim), a `nonce` (forbidden in logout tokens), another `signature`.
    func backChannelLogoutToken(
        clientID: String, subject: String?, sessionID: String? = nil, audience: String? = nil,
        events: JSONValue? = .object([DevProvider.backChannelLogoutEvent: .object([:])]), nonce: String? = nil,
        signature: DevSignature = .rs256
    ) throws -> String {
        let now = configuration.clock.now
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(audience ?? clientID),
            "iat": .integer(SafeNumber.clampedInt64(now.timeIntervalSince1970)),
            "exp": .integer(SafeNumber.clampedInt64(now.timeIntervalSince1970) + 120), "jti": .string(DevRandom.token()),
        ]
        if let subject { claims["sub"] = .string(subject) }
        if let sessionID { claims["sid"] = .string(sessionID) }
        if let events { claims["events"] = events }
        if let nonce { claims["nonce"] = .string(nonce) }
        let header: [String: JSONValue] = ["typ": "logout+jwt"]
        let keys = state.keys.withLock { $0.current }
        switch signature {
        case .rs256: return try keys.rsa.sign(claims: claims, algorithm: .rs256, header: header)
        case .es256: return try keys.ec.sign(claims: claims, algorithm: .es256, header: header)
        case .hs256(let secret):
            return try JWSSigningKey(hmac: HMACSecret(utf8: secret)).sign(claims: claims, algorithm: .hs256, header: header)
        case .none:
            let encodedHeader = Base64URL.encode(JSONSerializer.bytes(["alg": "none", "typ": "logout+jwt"]))
            return encodedHeader + "." + Base64URL.encode(JSONSerializer.bytes(.object(claims))) + "."
        }
    }

    /// POSTs `logout_token=TOKEN` to a relying party's back-channel logout URI, as a provider
    /// does; returns the HTTP status it answered.
    func sendBackChannelLogout(
        _ token: String, to url: String, http: any HTTPClient = AsyncHTTPClientTransport.shared
    ) async throws -> Int {
        let response = try await http.send(
            HTTPRequest(
                method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(FormURLEncoding.encode([("logout_token", token)]).utf8)))
        return response.status
    }

    /// The provider session `subject` is signed in with (the `sid` of their ID tokens), if any.
    func providerSessionID(for subject: String) -> String? {
        state.ssoSessionIDs.withLock { $0[subject] }
    }

    /// Ends `subject`'s provider session, as a real provider does before it sends a
    /// back-channel logout: the next sign-in authenticates again, in a new session.
    func endProviderSession(for subject: String) {
        state.ssoSessions.withLock { _ = $0.removeValue(forKey: subject) }
        state.ssoSessionIDs.withLock { _ = $0.removeValue(forKey: subject) }
    }

    /// The RP-initiated logouts received with a valid `id_token_hint` (`/logout`), in order.
    public var logouts: [DevLogout] { state.logouts.withLock { $0 } }
}
