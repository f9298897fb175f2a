public import Foundation

/// A verified RFC 9068 JWT access token: typed claims plus every raw claim.
///
/// Built only from a token that passed the access-token rules
/// (``ClaimRules/accessToken(issuers:resources:maxAge:)``), so `iss`, `sub`, `aud`, `exp`,
/// `iat`, `client_id` and `jti` are present and well-formed. The token string itself is not
/// kept: it is a bearer credential.
public struct AccessToken: Sendable, CustomStringConvertible {
    /// The protected header.
    package let header: JOSEHeader
    /// The algorithm that verified the signature.
    package let algorithm: JWSAlgorithm
    /// The `kid` of the verifying key, if any.
    package let keyID: String?
    /// Every claim of the payload, read from its text when asked for.
    public let claims: JSONMembers
    /// `cnf`, when the token is bound to a key; ``TokenConfirmation/jkt`` for DPoP (RFC 9449).
    /// Read when the token is built, so a malformed `cnf` can never pass for an unbound token.
    public let confirmation: TokenConfirmation?

    /// The claim `name` (any claim, registered or not), if present.
    package subscript(name: String) -> JSONValue? { claims[name] }

    /// `scope`: what the token allows (none when absent), parsed when read: a token only
    /// verified pays nothing for it. The access-token rules (`ScopeClaimRule`) refused any
    /// `scope` outside RFC 6749's grammar; one that reached here otherwise grants nothing.
    public var scopes: OAuthScopes {
        guard let text = claims.stringValue(.scope), let scopes = try? OAuthScopes(parsing: text) else { return .none }
        return scopes
    }
    /// `iss`.
    public var issuer: String { claims.stringValue(.iss) ?? "" }
    /// `sub`: the resource owner, or the client itself for a client-credentials grant.
    public var subject: String { claims.stringValue(.sub) ?? "" }
    /// `client_id`: the client the token was issued to.
    public var clientID: String { claims.stringValue(.clientID) ?? "" }
    /// `jti`.
    package var jwtID: String { claims.stringValue(.jti) ?? "" }
    /// `aud`, always as a list.
    package var audiences: [String] { VerifiedJWT(header: header, claims: claims, algorithm: algorithm, keyID: keyID).audienceList }
    /// `exp`.
    public var expiresAt: Date { date(.exp) ?? Date(timeIntervalSince1970: 0) }
    /// `iat`.
    package var issuedAt: Date { date(.iat) ?? Date(timeIntervalSince1970: 0) }
    /// `auth_time`, if present.
    package var authTime: Date? { date(.authTime) }

    /// Wraps a token the access-token rules accepted.
    init(_ token: VerifiedJWT) throws(FederateError) {
        self.header = token.header
        self.algorithm = token.algorithm
        self.keyID = token.keyID
        self.claims = token.claims
        self.confirmation = try TokenConfirmation(in: token.claims)
    }

    private func date(_ name: JSONName) -> Date? {
        claims.numericDateValue(name)?.date
    }

    public var description: String {
        "AccessToken(iss: \(issuer), sub: \(subject), client_id: \(clientID), scope: \(scopes), alg: \(algorithm.rawValue))"
    }
}
