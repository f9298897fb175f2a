package import FederateTokens

/// Google's issuers and endpoints (all configurable, so tests and the dev provider's Google
/// flavour can stand in for Google).
public struct GoogleEndpoints: Sendable, Hashable {
    /// The `iss` values Google's ID tokens carry: `https://accounts.google.com` and the legacy
    /// `accounts.google.com`.
    package var issuers: IdentifierSet
    /// The discovery issuer (`https://accounts.google.com`).
    package var issuer: String
    /// Google's JWKS for ID tokens.
    package var keysURL: String
    /// The authorization endpoint.
    package var authorizationURL: String
    /// The token endpoint.
    package var tokenURL: String
    /// The revocation endpoint.
    package var revocationURL: String
    /// The UserInfo endpoint.
    var userInfoURL: String
    /// The `iss` of RISC security event tokens (`https://accounts.google.com/`, with a slash).
    package var riscIssuer: String

    /// Creates endpoints.
    init(
        issuer: String, issuers: IdentifierSet, keysURL: String, authorizationURL: String, tokenURL: String, revocationURL: String,
        userInfoURL: String, riscIssuer: String
    ) {
        self.issuer = issuer
        self.issuers = issuers
        self.keysURL = keysURL
        self.authorizationURL = authorizationURL
        self.tokenURL = tokenURL
        self.revocationURL = revocationURL
        self.userInfoURL = userInfoURL
        self.riscIssuer = riscIssuer
    }

    /// Google's real endpoints.
    public static let google = GoogleEndpoints(
        issuer: "https://accounts.google.com", issuers: ["https://accounts.google.com", "accounts.google.com"],
        keysURL: "https://www.googleapis.com/oauth2/v3/certs", authorizationURL: "https://accounts.google.com/o/oauth2/v2/auth",
        tokenURL: "https://oauth2.googleapis.com/token", revocationURL: "https://oauth2.googleapis.com/revoke",
        userInfoURL: "https://openidconnect.googleapis.com/v1/userinfo", riscIssuer: "https://accounts.google.com/")

    /// Endpoints under another base URL with Google's paths, for a local stand-in such as the
    /// dev provider's Google flavour. The legacy issuer is the base without its scheme.
    public static func at(_ base: String) -> GoogleEndpoints {
        let legacy = base.range(of: "://").map { String(base[$0.upperBound...]) } ?? base
        return GoogleEndpoints(
            issuer: base, issuers: [base, legacy], keysURL: base + "/oauth2/v3/certs", authorizationURL: base + "/o/oauth2/v2/auth",
            tokenURL: base + "/token", revocationURL: base + "/revoke", userInfoURL: base + "/v1/userinfo", riscIssuer: base + "/")
    }
}
