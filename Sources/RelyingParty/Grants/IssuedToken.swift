package import FederateTokens
public import Foundation

/// A token an authorization server issued to this service itself: by the client-credentials
/// grant (RFC 6749 §4.4) or by token exchange (RFC 8693).
///
/// A bearer credential: its `description` is redacted.
public struct IssuedToken: Sendable, CustomStringConvertible {
    /// `access_token`: the token issued (for token exchange, of `issuedTokenType`).
    public let token: String
    /// `token_type`: `Bearer`, `DPoP` (bound to the client's DPoP key), or for token exchange
    /// `N_A` when the issued token is not an access token (RFC 8693 §2.2.1).
    public let tokenType: String
    /// `issued_token_type` (RFC 8693), `nil` for the client-credentials grant.
    public let issuedTokenType: String?
    /// When it expires (`expires_in` made absolute), if the server said.
    public let expiresAt: Date?
    /// The scopes granted: `scope` of the answer, else those requested.
    public let scopes: [String]
    /// `refresh_token`, if the server sent one (RFC 8693 allows it; RFC 6749 §4.4.3 advises against it).
    public let refreshToken: String?
    /// Every member of the answer (holds the token).
    package let response: [String: JSONValue]

    /// Creates a value (normally built by ``ServiceTokenClient``).
    init(
        token: String, tokenType: String, issuedTokenType: String?, expiresAt: Date?, scopes: [String], refreshToken: String?,
        response: [String: JSONValue]
    ) {
        self.token = token
        self.tokenType = tokenType
        self.issuedTokenType = issuedTokenType
        self.expiresAt = expiresAt
        self.scopes = scopes
        self.refreshToken = refreshToken
        self.response = response
    }

    /// Whether the token is DPoP-bound (`token_type` `DPoP`).
    var isDPoPBound: Bool { tokenType.caseInsensitiveEquals("DPoP") }

    /// Redacted.
    public var description: String {
        "IssuedToken(type: \(tokenType), issued: \(issuedTokenType ?? "-"), expiresAt: \(expiresAt.map { "\($0)" } ?? "-"), scopes: \(scopes), token redacted)"
    }
}
