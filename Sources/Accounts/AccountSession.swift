package import FederateTokens
public import Foundation

/// A verified session: the claims of a session token issued by ``AccountService``.
///
/// Obtained only from ``AccountService/verifySession(_:checkRevoked:)`` or an
/// ``AuthResult``, so holding one proves the token verified. Sensitive operations take it
/// and check ``authTime`` with ``AccountService/requireRecentLogin(_:within:)``.
public struct AccountSession: Sendable, Hashable, CustomStringConvertible {
    /// The user (`sub`).
    public let uid: String
    /// The session ID (`sid`), unique per issued session.
    public let sessionID: String
    /// When the token was issued (`iat`).
    package let issuedAt: Date
    /// When the token expires (`exp`).
    public let expiresAt: Date
    /// When the user last proved their identity with a provider (`auth_time`).
    public let authTime: Date
    /// The signing key's `kid`.
    package let keyID: String
    /// The provider identity the session was signed in (or reauthenticated) with, and the
    /// provider's own session (`sid` of its ID token), when known: what a provider's logout
    /// or security event ends (claims `idp`, `idp_sub`, `idp_sid`).
    package let provider: SessionProvider?
    /// The provider's `acr` for that authentication, when its ID token asserted one (claim `acr`).
    public let acr: String?
    /// The provider's `amr` for that authentication (claim `amr`); empty when not asserted.
    public let amr: [String]
    /// Whether the session is a guest's (``AccountService/signInAsGuest()``, claim `guest`):
    /// it proves no sign-in with a provider, so it never counts as recent
    /// (``AccountService/requireRecentLogin(_:within:)``).
    public let isGuest: Bool
    /// Whether the provider proved when the user authenticated. `false` for a sign-in with an
    /// OAuth 2.0 provider without ID tokens and without a freshness proof (claim
    /// `auth_time_unproven`): then ``authTime`` is only when the session began, and
    /// ``AccountService/requireRecentLogin(_:within:)`` never counts the session as recent.
    let authTimeProven: Bool

    init(
        uid: String, sessionID: String, issuedAt: Date, expiresAt: Date, authTime: Date, keyID: String, provider: SessionProvider? = nil,
        acr: String? = nil, amr: [String] = [], isGuest: Bool = false, authTimeProven: Bool = true
    ) {
        self.isGuest = isGuest
        self.authTimeProven = authTimeProven
        self.acr = acr
        self.amr = amr
        self.uid = uid
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        self.keyID = keyID
        self.provider = provider
    }

    /// How and when the user authenticated (`acr`, `amr`, `auth_time`): what
    /// ``AccountService/requireAuthentication(_:meets:within:)`` checks.
    package var authenticationLevel: AuthenticationLevel {
        (try? AuthenticationLevel(acr: acr, amr: amr, authTime: authTime)) ?? .init(unchecked: authTime)
    }

    /// The claims, for logs (the token itself is never kept here).
    public var description: String {
        "AccountSession(uid: \(uid), sid: \(sessionID), auth_time: \(authTime), exp: \(expiresAt))"
    }
}
