public import FederateTokens
public import Foundation

/// Tokens from the token endpoint, validated.
///
/// Holds bearer credentials: its `description` is redacted; never log its fields.
public struct TokenSet: Sendable, CustomStringConvertible {
    /// The access token.
    public let accessToken: String
    /// `token_type` as sent: `Bearer`, or `DPoP` when the access token is bound to the
    /// client's DPoP key (then present it with `Authorization: DPoP` and a proof; `isDPoPBound`).
    public let tokenType: String
    /// When the access token expires (`expires_in` made absolute), if the provider said.
    public let expiresAt: Date?
    /// The refresh token, if any (on refresh without a new one: the previous one).
    public let refreshToken: String?
    /// The raw ID token, if any.
    public let idToken: String?
    /// The verified ID token, if any.
    public let idTokenClaims: IDToken?
    /// The scopes granted: the response's `scope`, or the requested scopes when it is absent (RFC 6749 §5.1).
    public let grantedScopes: [String]
    /// Requested scopes the user or provider did not grant (granular consent).
    package let refusedScopes: [String]
    /// Every member of the token response (contains secrets).
    package let response: [String: JSONValue]

    /// Creates a token set (normally built by ``OpenIDClient``).
    init(
        accessToken: String, tokenType: String, expiresAt: Date?, refreshToken: String?, idToken: String?,
        idTokenClaims: IDToken?, grantedScopes: [String], refusedScopes: [String], response: [String: JSONValue]
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.idTokenClaims = idTokenClaims
        self.grantedScopes = grantedScopes
        self.refusedScopes = refusedScopes
        self.response = response
    }

    /// Whether the access token is DPoP-bound (`token_type` `DPoP`, RFC 9449 §5).
    var isDPoPBound: Bool { tokenType.caseInsensitiveEquals("DPoP") }

    /// Redacted.
    public var description: String {
        "TokenSet(type: \(tokenType), expiresAt: \(expiresAt.map { "\($0)" } ?? "-"), refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), scopes: \(grantedScopes), tokens redacted)"
    }
}
