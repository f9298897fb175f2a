public import Foundation

/// A verified ID token: typed standard claims plus every raw claim.
///
/// The token string itself is not kept: it is a bearer credential.
public struct IDToken: Sendable, CustomStringConvertible {
    /// The protected header.
    public let header: JOSEHeader
    /// The algorithm that verified the signature.
    public let algorithm: JWSAlgorithm
    /// The `kid` of the verifying key, if any.
    public let keyID: String?
    /// Every claim of the payload.
    public let claims: [String: JSONValue]

    /// `iss`.
    public let issuer: String
    /// `sub`: the stable identifier of the user at this issuer.
    public let subject: String
    /// `aud`, always as a list.
    public let audiences: [String]
    /// `azp`, if present.
    public let authorizedParty: String?
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `nbf`, if present.
    public let notBefore: Date?
    /// `auth_time`, if present.
    public let authTime: Date?
    /// `nonce`, if present.
    public let nonce: String?

    /// `email`, if present.
    public var email: String? { claims["email"]?.stringValue }
    /// `email_verified`, accepting a Boolean or the strings `"true"`/`"false"` (Apple sends strings).
    public var emailVerified: Bool? { claims["email_verified"].flatMap(IDToken.flexibleBool) }
    /// `name`, if present.
    public var name: String? { claims["name"]?.stringValue }
    /// `picture`, if present.
    public var picture: String? { claims["picture"]?.stringValue }

    /// Reads a Boolean that some providers send as a string.
    public static func flexibleBool(_ value: JSONValue) -> Bool? {
        switch value {
        case .bool(let b): return b
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }

    /// Reads the typed claims of a token the ID-token rules accepted.
    init(_ token: VerifiedJWT) throws(FederateError) {
        self.header = token.header
        self.algorithm = token.algorithm
        self.keyID = token.keyID
        self.claims = token.claims
        self.issuer = try token.requiredString("iss")
        self.subject = try token.requiredString("sub")
        guard let audiences = try token.audiences() else { throw FederateError(.missingClaim, "required claim 'aud' is missing") }
        self.audiences = audiences
        self.authorizedParty = try token.string("azp")
        self.expiresAt = try token.requiredNumericDate("exp").date
        self.issuedAt = try token.requiredNumericDate("iat").date
        self.notBefore = try token.numericDate("nbf")?.date
        self.authTime = try token.numericDate("auth_time")?.date
        self.nonce = try token.string("nonce")
    }

    public var description: String {
        "IDToken(iss: \(issuer), sub: \(subject), aud: \(audiences), alg: \(algorithm.rawValue))"
    }
}
