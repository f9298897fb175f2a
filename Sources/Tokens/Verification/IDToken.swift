public import Foundation

/// A verified ID token: typed standard claims plus every raw claim.
///
/// Built only from a token that passed the ID-token rules (``IDTokenPolicy/rules(for:)``),
/// so the typed claims below are present and well-formed; each is read from ``claims`` when
/// asked for, which keeps verification from decoding what the caller never reads.
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
    public var issuer: String { claims["iss"]?.stringValue ?? "" }
    /// `sub`: the stable identifier of the user at this issuer.
    public var subject: String { claims["sub"]?.stringValue ?? "" }
    /// `aud`, always as a list.
    public var audiences: [String] {
        switch claims["aud"] {
        case .string(let single)?: return [single]
        case .array(let entries)?: return entries.compactMap(\.stringValue)
        default: return []
        }
    }
    /// `azp`, if present.
    public var authorizedParty: String? { claims["azp"]?.stringValue }
    /// `exp`.
    public var expiresAt: Date { date("exp") ?? Date(timeIntervalSince1970: 0) }
    /// `iat`.
    public var issuedAt: Date { date("iat") ?? Date(timeIntervalSince1970: 0) }
    /// `nbf`, if present.
    public var notBefore: Date? { date("nbf") }
    /// `auth_time`, if present.
    public var authTime: Date? { date("auth_time") }
    /// `nonce`, if present.
    public var nonce: String? { claims["nonce"]?.stringValue }

    /// `email`, if present.
    public var email: String? { claims["email"]?.stringValue }
    /// `email_verified` when it is a JSON Boolean (OpenID Connect Core §5.1); anything else is
    /// `nil`. A provider module that sends it otherwise reads it itself (FederateApple).
    public var emailVerified: Bool? {
        guard case .bool(let verified)? = claims["email_verified"] else { return nil }
        return verified
    }
    /// `name`, if present.
    public var name: String? { claims["name"]?.stringValue }
    /// `picture`, if present.
    public var picture: String? { claims["picture"]?.stringValue }

    /// Wraps a token the ID-token rules accepted.
    init(_ token: VerifiedJWT) {
        self.header = token.header
        self.algorithm = token.algorithm
        self.keyID = token.keyID
        self.claims = token.claims
    }

    private func date(_ name: String) -> Date? {
        claims[name].flatMap(NumericDate.init(json:))?.date
    }

    public var description: String {
        "IDToken(iss: \(issuer), sub: \(subject), aud: \(audiences), alg: \(algorithm.rawValue))"
    }
}
