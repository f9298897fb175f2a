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

    public var description: String {
        "IDToken(iss: \(issuer), sub: \(subject), aud: \(audiences), alg: \(algorithm.rawValue))"
    }
}
