public import FederateTokens
import Foundation

extension AccountService {
    /// Issues a session for `uid` whose user proved their identity at `authTime`
    /// (``signIn(with:)`` and ``reauthenticate(_:with:authenticatedAfter:)`` call it). The token is an ES256
    /// JWT with `iss`, `sub`, `sid`, `iat`, `exp`, `auth_time`, and the key's `kid` in its header;
    /// with the provider's `acr` and `amr` when given (the authentication level, which
    /// ``requireAuthentication(_:meets:within:)`` checks). With `authTimeProven` false (a
    /// provider that cannot prove when the user authenticated: OAuth 2.0 without ID tokens),
    /// the token says so (`auth_time_unproven`) and the session never counts as a recent sign-in.
    func issueSession(
        uid: String, authTime: Date, provider: SessionProvider? = nil, acr: String? = nil, amr: [String] = [], authTimeProven: Bool = true
    ) async throws(FederateError) -> (session: AccountSession, token: String) {
        try await issueSession(
            uid: uid, authTime: authTime, provider: provider, acr: acr, amr: amr, authTimeProven: authTimeProven, guestUntil: nil)
    }

    /// `issueSession(uid:authTime:provider:acr:amr:authTimeProven:)`; with `guestUntil`, a guest's session
    /// (claim `guest`), which expires no later than the guest does.
    func issueSession(
        uid: String, authTime: Date, provider: SessionProvider? = nil, acr: String? = nil, amr: [String] = [], authTimeProven: Bool = true,
        guestUntil: Date?
    ) async throws(FederateError) -> (session: AccountSession, token: String) {
        let level = try AuthenticationLevel(acr: acr, amr: amr)
        let now = clock.now
        let key = try await keyRing.signingKey(now: now)
        let issuedAt = Self.seconds(now)
        var expiresAt = SafeNumber.clampedInt64(Double(issuedAt) + configuration.sessionLifetime.inSeconds)
        if let guestUntil { expiresAt = max(issuedAt, min(expiresAt, Self.seconds(guestUntil))) }
        let authSeconds = min(Self.seconds(authTime), issuedAt)
        let sessionID = SecureRandom.token(byteCount: 16)
        var claims: [String: JSONValue] = [
            "iss": .string(configuration.issuer), "sub": .string(uid), "sid": .string(sessionID),
            "iat": .integer(issuedAt), "exp": .integer(expiresAt), "auth_time": .integer(authSeconds),
        ]
        if let provider {
            claims["idp"] = .string(provider.providerID)
            claims["idp_sub"] = .string(provider.subject)
            if let sessionID = provider.sessionID { claims["idp_sid"] = .string(sessionID) }
        }
        if let acr = level.acr { claims["acr"] = .string(acr) }
        if !level.amr.isEmpty { claims["amr"] = .array(level.amr.map(JSONValue.string)) }
        if guestUntil != nil { claims["guest"] = .bool(true) }
        if !authTimeProven { claims["auth_time_unproven"] = true }
        let token = try key.sign(claims: claims, algorithm: .es256, header: ["typ": .string(ExplicitTypeRule.sessionTokenType)])
        let session = AccountSession(
            uid: uid, sessionID: sessionID, issuedAt: Self.date(issuedAt), expiresAt: Self.date(expiresAt),
            authTime: Self.date(authSeconds), keyID: key.keyID ?? "", provider: provider, acr: level.acr, amr: level.amr,
            isGuest: guestUntil != nil, authTimeProven: authTimeProven)
        return (session, token)
    }

    /// Verifies a session token: signature (ES256, a key of this service's store), then the
    /// session-token rules (`ClaimRules/sessionToken(issuer:)`: `iss`, `sub`, `sid`, `iat`,
    /// `exp` and `auth_time`, with the configured clock tolerance). With `checkRevoked` (the default) also that the user exists
    /// (`user_not_found`), is enabled (`user_disabled`), and that the session was neither
    /// signed out nor issued before the user's `tokensValidAfter` (`session_revoked`).
    ///
    /// The revocation check answers from a cache coherent across every instance on the
    /// store: a revocation made anywhere is honoured everywhere within
    /// `AccountServiceConfiguration.revocationCheckInterval` (1 s by default), and at once by
    /// the instance that made it (Docs/Accounts.md, "Revocation across instances").
    public func verifySession(_ token: String, checkRevoked: Bool = true) async throws(FederateError) -> AccountSession {
        try await observedSessionVerification { () async throws(FederateError) in
            try await verifySessionUnobserved(token, checkRevoked: checkRevoked)
        }
    }

    private func verifySessionUnobserved(_ token: String, checkRevoked: Bool) async throws(FederateError) -> AccountSession {
        let verified = try await sessionVerifier.verify(token)
        var provider: SessionProvider?
        if let providerID = try verified.string("idp"), let subject = try verified.string("idp_sub") {
            provider = SessionProvider(providerID: providerID, subject: subject, sessionID: try verified.string("idp_sid"))
        }
        let level = try AuthenticationLevel(claims: verified.claims)
        let session = AccountSession(
            uid: try verified.requiredString("sub"), sessionID: try verified.requiredString("sid"),
            issuedAt: try verified.requiredNumericDate("iat").date, expiresAt: try verified.requiredNumericDate("exp").date,
            authTime: try verified.requiredNumericDate("auth_time").date, keyID: verified.keyID ?? "", provider: provider, acr: level.acr,
            amr: level.amr, isGuest: verified.claims["guest"] == .bool(true),
            authTimeProven: verified.claims["auth_time_unproven"] != .bool(true))
        if checkRevoked { try await checkNotRevoked(session) }
        return session
    }

    /// Throws unless the session's user exists and is enabled, and the session was neither
    /// signed out nor ended (by `tokensValidAfter`, or by its provider). Answers from the
    /// revocation cache while the store's epoch is fresh
    /// (`AccountServiceConfiguration.revocationCheckInterval`).
    private func checkNotRevoked(_ session: AccountSession) async throws(FederateError) {
        let now = clock.now
        // A fresh epoch is taken without an async call (each cost executor checks per session).
        var snapshot: SessionRevocationCache.Snapshot?
        if revocations.isEnabled {
            snapshot = revocations.freshSnapshot(now: now).snapshot
            if snapshot == nil { snapshot = try await revocations.snapshot(now: now) }
        }
        if let snapshot, revocations.isKnownActive(session, under: snapshot) { return }
        let user = try await activeUser(session.uid)
        if let validAfter = user.tokensValidAfter, session.issuedAt < validAfter {
            throw FederateError(.sessionRevoked, "the user's sessions were revoked after this one was issued")
        }
        if try await storage.isSessionRevoked(id: session.sessionID) {
            throw FederateError(.sessionRevoked, "the session was signed out")
        }
        if let provider = session.provider, let validAfter = try await storage.sessionsEnded(keys: provider.endKeys),
            session.issuedAt < validAfter
        {
            throw FederateError(.sessionRevoked, "the provider ended this session (logout or security event)")
        }
        if let snapshot { revocations.rememberActive(session, under: snapshot) }
    }

    /// Throws `requires_recent_login` unless the session's `auth_time` is within `window`
    /// (default `AccountServiceConfiguration.recentLoginWindow`, 5 minutes) of now, and was
    /// proven by its provider (`AccountSession.authTimeProven`: a sign-in with an OAuth 2.0
    /// provider without ID tokens never counts as recent). A guest's session never passes: a
    /// guest proved nothing to a provider, and becomes able to by linking one
    /// (``link(_:with:authenticatedAfter:session:)``, which then issues a full session).
    public func requireRecentLogin(_ session: AccountSession, within window: Duration? = nil) throws(FederateError) {
        guard !session.isGuest else {
            throw FederateError(.requiresRecentLogin, "a guest session cannot prove a recent sign-in: link a provider first")
        }
        guard session.authTimeProven else {
            throw FederateError(
                .requiresRecentLogin,
                "this session was signed in with a provider that cannot prove a fresh sign-in: reauthenticate with one that can")
        }
        let window = window ?? configuration.recentLoginWindow
        let age = clock.now.timeIntervalSince(session.authTime)
        guard age <= window.inSeconds else {
            throw FederateError(
                .requiresRecentLogin,
                "this operation needs a sign-in within \(window); the last was \(SafeNumber.text(age.rounded())) s ago: reauthenticate")
        }
    }

    /// Replaces the session-signing key now (it also happens by itself every
    /// `AccountServiceConfiguration.keyRotationInterval`). Existing sessions keep verifying.
    func rotateSessionKeys() async throws(FederateError) {
        try await keyRing.rotate(now: clock.now)
    }

    /// Whole seconds since 1970, clamped (a `Date` from a verified token is within 0…2^53 s).
    static func seconds(_ date: Date) -> Int64 { SafeNumber.clampedInt64(date.timeIntervalSince1970.rounded(.down)) }
    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
