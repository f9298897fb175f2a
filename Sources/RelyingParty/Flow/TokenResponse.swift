package import FederateTokens
/// A successful token-endpoint response (RFC 6749 §5.1), checked for shape before any of its
/// tokens is used: `access_token` a non-empty string, `token_type` Bearer or DPoP (RFC 9449
/// §5; in any case; `N_A` only where RFC 8693 allows it, for an exchanged token that is not
/// an access token),
/// `expires_in` a non-negative number, `refresh_token`, `id_token` and `scope` strings when
/// present, `expires_in` at most 2^53 seconds (a larger one is refused: no later conversion may
/// trap on it). The ID token is not verified here; ``OpenIDClient`` does that next.
///
/// Holds bearer credentials: its `description` is redacted.
package struct TokenResponse: Sendable, CustomStringConvertible {
    /// `access_token`.
    public let accessToken: String
    /// `token_type` as sent: `Bearer`, or `DPoP` for a token bound to the client's DPoP key.
    public let tokenType: String
    /// `expires_in`, in seconds, if sent.
    let expiresIn: Double?
    /// `refresh_token`, if sent.
    package let refreshToken: String?
    /// `id_token`, not yet verified, if sent.
    package let idToken: String?
    /// `scope` split on spaces, if sent.
    package let scopes: [String]?
    /// Every member of the response.
    public let members: [String: JSONValue]

    /// Parses a response body. Throws `FederateError/Code/invalidTokenResponse`.
    public init(parsing body: some Collection<UInt8>) throws(FederateError) {
        let members: [String: JSONValue]
        do {
            members = try JSONParser().parseObject(body)
        } catch {
            throw FederateError(.invalidTokenResponse, "the token response is not a JSON object")
        }
        try self.init(members: members)
    }

    /// Checks already-parsed members. Throws `FederateError/Code/invalidTokenResponse`. The
    /// one rule of every token answer (authorization code, refresh, client credentials, token
    /// exchange, GitHub's): `allowingNotApplicableType` admits `token_type` `N_A` (RFC 8693
    /// §2.2.1: an exchanged token that is not an access token).
    public init(members: [String: JSONValue], allowingNotApplicableType: Bool = false) throws(FederateError) {
        guard case .string(let accessToken)? = members["access_token"], !accessToken.isEmpty else {
            throw FederateError(.invalidTokenResponse, "the token response has no access_token")
        }
        guard case .string(let tokenType)? = members["token_type"],
            tokenType.caseInsensitiveEquals("bearer") || tokenType.caseInsensitiveEquals("dpop")
                || (allowingNotApplicableType && tokenType.utf8.elementsEqual("N_A".utf8))
        else {
            throw FederateError(
                .invalidTokenResponse,
                allowingNotApplicableType ? "token_type must be Bearer, DPoP or N_A" : "token_type must be Bearer or DPoP")
        }
        var expiresIn: Double?
        if let value = members["expires_in"] {
            // Some providers send the number as a string; anything else is refused.
            guard let seconds = value.doubleValue ?? value.stringValue.flatMap(Double.init), NumericDate(secondsSince1970: seconds) != nil
            else {
                throw FederateError(.invalidTokenResponse, "expires_in is not a number of seconds from 0 to 2^53")
            }
            expiresIn = seconds
        }
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = try Self.optionalString("refresh_token", in: members)
        self.idToken = try Self.optionalString("id_token", in: members)
        self.scopes = try Self.optionalString("scope", in: members).map { $0.split(separator: " ").map(String.init) }
        self.members = members
    }

    private static func optionalString(_ name: String, in members: [String: JSONValue]) throws(FederateError) -> String? {
        guard let value = members[name] else { return nil }
        guard case .string(let string) = value else { throw FederateError(.invalidTokenResponse, "\(name) is not a string") }
        return string
    }

    /// Redacted.
    public var description: String {
        "TokenResponse(type: \(tokenType), refreshToken: \(refreshToken == nil ? "no" : "yes"), idToken: \(idToken == nil ? "no" : "yes"), tokens redacted)"
    }
}
