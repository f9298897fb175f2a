public import FederateRelyingParty
public import FederateTokens

/// Verifies Firebase session cookies (made by the Admin SDKs' `createSessionCookie`) as
/// their `verifySessionCookie` does.
///
/// The rules of ID tokens (``FirebaseIDTokenVerifier``) with the session cookie's own issuer
/// and keys: header `alg` RS256 and a `kid` naming a certificate of Google's session-cookie
/// key map (`https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys`, the same
/// `{kid: PEM certificate}` map format, cached by `Cache-Control: max-age`); `iss`
/// `https://session.firebase.google.com/<project>`; `aud` the project; `exp` in the future,
/// `iat` and `auth_time` in the past; `sub` non-empty and at most 128 characters;
/// `firebase.tenant` when tenants are expected. Source: firebase-admin-node,
/// `src/auth/token-verifier.ts` (`SESSION_COOKIE_CERT_URL`, `createSessionCookieVerifier`).
public struct FirebaseSessionCookieVerifier: Sendable {
    /// Google's certificate map for session cookies.
    package static let certificatesURL = "https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys"
    /// The issuer base of session cookies; the project ID follows it.
    package static let issuerBase = "https://session.firebase.google.com/"

    /// The Firebase project ID.
    package var projectID: String { check.projectID }
    /// The underlying verifier (for signed cookies).
    package var verifier: IDTokenVerifier { check.verifier }
    /// The Auth emulator whose unsigned cookies are accepted, when one was configured.
    package var emulator: FirebaseEmulator? { check.emulator }
    private let check: FirebaseJWTCheck

    /// Creates a verifier for `projectID`; the parameters are ``FirebaseIDTokenVerifier``'s,
    /// with `keys` (else fetched over `httpClient`) from the session-cookie key map and `issuerBase`
    /// `https://session.firebase.google.com/` unless testing against a stand-in.
    public init(
        projectID: String?, clockTolerance: Duration = .seconds(5), keys: (any KeySetProvider)? = nil,
        httpClient: (any HTTPClient)? = nil, issuerBase: String = "https://session.firebase.google.com/", tenants: IdentifierSet? = nil,
        emulator: FirebaseEmulator? = nil, userLookup: (@Sendable (String) async throws -> FirebaseUserState?)? = nil,
        clock: FederateClock = .system, observability: Observability = Observability()
    ) throws(FederateError) {
        check = try FirebaseJWTCheck(
            name: "session cookie", projectID: projectID, clockTolerance: clockTolerance, keys: keys, httpClient: httpClient,
            certificatesURL: Self.certificatesURL, issuerBase: issuerBase, tenants: tenants, emulator: emulator, userLookup: userLookup,
            clock: clock, observability: observability, expiredCode: .sessionCookieExpired, revokedCode: .sessionCookieRevoked)
    }

    /// Verifies the cookie's value. An expired cookie fails with `session_cookie_expired`; with
    /// `checkRevoked`, one from before the user's `tokensValidAfter` with `session_cookie_revoked`,
    /// a disabled user with `user_disabled`.
    public nonisolated(nonsending) func verify(_ cookie: String, checkRevoked: Bool = false) async throws(FederateError) -> FirebaseToken {
        try await check.verify(cookie, checkRevoked: checkRevoked)
    }
}

extension FederateError.Code {
    /// Firebase: the session cookie has expired.
    public static let sessionCookieExpired: Self = "session_cookie_expired"
    /// Firebase: the user's tokens were revoked after the sign-in this session cookie came from.
    public static let sessionCookieRevoked: Self = "session_cookie_revoked"
}
