public import Foundation

extension AccountService {
    /// Issues a session for `uid` whose user proved their identity at `authTime`
    /// (``signIn(with:)`` and ``reauthenticate(_:with:)`` call it). The token is an ES256
    /// JWT with `iss`, `sub`, `sid`, `iat`, `exp`, `auth_time`, and the key's `kid` in its header.
    public func issueSession(uid: String, authTime: Date) async throws -> (session: AccountSession, token: String) {
        let now = clock()
        let key = try await keyRing.signingKey(now: now)
        let issuedAt = Self.seconds(now)
        let expiresAt = issuedAt + Int64(configuration.sessionLifetime.rounded(.down))
        let authSeconds = min(Self.seconds(authTime), issuedAt)
        let sessionID = SecureRandom.token(byteCount: 16)
        let token = try key.sign(
            claims: [
                "iss": .string(configuration.issuer), "sub": .string(uid), "sid": .string(sessionID),
                "iat": .integer(issuedAt), "exp": .integer(expiresAt), "auth_time": .integer(authSeconds),
            ],
            algorithm: .es256)
        let session = AccountSession(
            uid: uid, sessionID: sessionID, issuedAt: Self.date(issuedAt), expiresAt: Self.date(expiresAt),
            authTime: Self.date(authSeconds), keyID: key.keyID ?? "")
        return (session, token)
    }

    /// Verifies a session token: signature (ES256, a key of this service's store), `iss`,
    /// `exp`, `iat`. With `checkRevoked` (the default) also that the user exists
    /// (`user_not_found`), is enabled (`user_disabled`), and that the session was neither
    /// signed out nor issued before the user's `tokensValidAfter` (`session_revoked`).
    public func verifySession(_ token: String, checkRevoked: Bool = true) async throws -> AccountSession {
        let now = clock()
        let jws = try CompactJWS(parsing: token)
        guard jws.header.algorithm == .es256 else {
            throw FederateError(.disallowedAlgorithm, "session tokens are ES256")
        }
        guard let keyID = jws.header.keyID else { throw FederateError(.unknownKey, "the session token has no kid") }
        let keys = try await keyRing.verificationKeys(for: keyID, now: now)
        _ = try JWSSignatureVerifier(allowedAlgorithms: [.es256]).verify(jws, keySet: keys)
        let claims: [String: JSONValue]
        do {
            claims = try JSONParser().parseObject(jws.payload)
        } catch {
            throw FederateError(.malformedToken, "the session token's payload is not a JSON object")
        }
        guard claims["iss"]?.stringValue == configuration.issuer else {
            throw FederateError(.issuerMismatch, "the session token was not issued by this service")
        }
        guard let uid = claims["sub"]?.stringValue, !uid.isEmpty, let sessionID = claims["sid"]?.stringValue, !sessionID.isEmpty else {
            throw FederateError(.missingClaim, "the session token lacks sub or sid")
        }
        guard let iat = claims["iat"]?.int64Value, let exp = claims["exp"]?.int64Value, let authTime = claims["auth_time"]?.int64Value else {
            throw FederateError(.missingClaim, "the session token lacks iat, exp or auth_time")
        }
        guard now < Self.date(exp) else { throw FederateError(.tokenExpired, "the session expired") }
        guard Self.date(iat).timeIntervalSince(now) <= configuration.clockTolerance else {
            throw FederateError(.issuedInFuture, "the session token is issued in the future")
        }
        let session = AccountSession(
            uid: uid, sessionID: sessionID, issuedAt: Self.date(iat), expiresAt: Self.date(exp), authTime: Self.date(authTime), keyID: keyID)
        if checkRevoked {
            let user = try await activeUser(uid)
            if let validAfter = user.tokensValidAfter, session.issuedAt < validAfter {
                throw FederateError(.sessionRevoked, "the user's sessions were revoked after this one was issued")
            }
            if try await store.isSessionRevoked(id: sessionID) {
                throw FederateError(.sessionRevoked, "the session was signed out")
            }
        }
        return session
    }

    /// Throws `requires_recent_login` unless the session's `auth_time` is within `window`
    /// (default ``AccountServiceConfiguration/recentLoginWindow``, 5 minutes) of now.
    public func requireRecentLogin(_ session: AccountSession, within window: TimeInterval? = nil) throws(FederateError) {
        let window = window ?? configuration.recentLoginWindow
        let age = clock().timeIntervalSince(session.authTime)
        guard age <= window else {
            throw FederateError(.requiresRecentLogin, "this operation needs a sign-in within \(Int(window)) s; the last was \(Int(age)) s ago: reauthenticate")
        }
    }

    /// Replaces the session-signing key now (it also happens by itself every
    /// ``AccountServiceConfiguration/keyRotationInterval``). Existing sessions keep verifying.
    public func rotateSessionKeys() async throws {
        try await keyRing.rotate(now: clock())
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
