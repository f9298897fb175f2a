public import Foundation

/// A verified ID token: typed standard claims plus every raw claim.
///
/// Built only from a token that passed the ID-token rules (`IDTokenPolicy.rules(for:)`),
/// so the typed claims below are present and well-formed; each is read from ``claims`` when
/// asked for, which keeps verification from decoding what the caller never reads.
///
/// The token string itself is not kept: it is a bearer credential.
public struct IDToken: Sendable, CustomStringConvertible {
    /// The protected header.
    package let header: JOSEHeader
    /// The algorithm that verified the signature.
    public let algorithm: JWSAlgorithm
    /// The `kid` of the verifying key, if any.
    public let keyID: String?
    /// Every claim of the payload, read from its text when asked for.
    public let claims: JSONMembers

    /// The claim `name` (any claim, registered or not), if present.
    package subscript(name: String) -> JSONValue? { claims[name] }

    /// `iss`.
    public var issuer: String { claims.stringValue(.iss) ?? "" }
    /// `sub`: the stable identifier of the user at this issuer.
    public var subject: String { claims.stringValue(.sub) ?? "" }
    /// `aud`, always as a list.
    public var audiences: [String] { verified.audienceList }
    /// `azp`, if present.
    public var authorizedParty: String? { claims.stringValue(.azp) }
    /// `exp`.
    public var expiresAt: Date { date(.exp) ?? Date(timeIntervalSince1970: 0) }
    /// `iat`.
    public var issuedAt: Date { date(.iat) ?? Date(timeIntervalSince1970: 0) }
    /// `nbf`, if present.
    public var notBefore: Date? { date(.nbf) }
    /// `auth_time`, if present.
    public var authTime: Date? { date(.authTime) }
    /// `nonce`, if present.
    public var nonce: String? { claims.stringValue(.nonce) }
    /// `sid` (the provider's session, OpenID Connect Back-Channel Logout §2.1), if present.
    package var sessionID: String? { claims.stringValue(.sid) }

    /// `email`, if present.
    public var email: String? { claims.stringValue(.email) }
    /// `email_verified` when it is a JSON Boolean (OpenID Connect Core §5.1); anything else is
    /// `nil`. A provider module that sends it otherwise reads it itself (FederateApple).
    public var emailVerified: Bool? {
        switch claims.member(.emailVerified)?.kind {
        case .true?: return true
        case .false?: return false
        default: return nil
        }
    }
    /// `name`, if present.
    public var name: String? { claims.stringValue(.name) }
    /// `picture`, if present.
    public var picture: String? { claims.stringValue(.picture) }

    /// Wraps a token the ID-token rules accepted.
    init(_ token: VerifiedJWT) {
        self.header = token.header
        self.algorithm = token.algorithm
        self.keyID = token.keyID
        self.claims = token.claims
    }

    /// The token as the rules read it.
    var verified: VerifiedJWT { VerifiedJWT(header: header, claims: claims, algorithm: algorithm, keyID: keyID) }

    private func date(_ name: JSONName) -> Date? {
        claims.numericDateValue(name)?.date
    }

    public var description: String {
        "IDToken(iss: \(issuer), sub: \(subject), aud: \(audiences), alg: \(algorithm.rawValue))"
    }
}
