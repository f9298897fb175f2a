public import Foundation

/// What a ``TokenVerifier`` accepted: an ID token, a JWT access token (RFC 9068) or an
/// introspected token (RFC 7662), and who it says the caller is. What every kind has in common
/// is typed here; the kind's own reading is a typed view (``idToken``, ``accessToken``), and
/// ``claims`` holds every claim.
public struct VerifiedToken: Sendable, CustomStringConvertible {
    /// Which kind of token it is.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The snake_case name.
        public let rawValue: String
        /// A kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An OpenID Connect ID token (an app's sign-in token sent to its own backend).
        public static let idToken = Kind(rawValue: "id_token")
        /// An RFC 9068 JWT access token, verified locally.
        public static let accessToken = Kind(rawValue: "access_token")
        /// An access token the authorization server vouched for by introspection (RFC 7662).
        public static let introspection = Kind(rawValue: "introspection")
    }

    /// The kind of token.
    public let kind: Kind
    /// The provider the token comes from, when the verifier was given one (`oidc.corp`).
    public let providerID: String?
    /// Where the identity's fields are read: the verified token itself (read when asked for,
    /// so a request that only needs the subject builds nothing else), or values given.
    private let source: Source
    /// The DPoP proof (RFC 9449) the request came with, when it presented a DPoP-bound token:
    /// its key is the token's ``TokenConfirmation/jkt`` (`confirmed(by:)`).
    public private(set) var dpopProof: DPoPProof?

    private enum Source: Sendable {
        case idToken(IDToken)
        case accessToken(AccessToken)
        case described(Described)
    }

    /// The fields of an identity built from its parts.
    private struct Described: Sendable {
        let issuer: String?
        let subject: String?
        let clientID: String?
        let scopes: OAuthScopes
        let expiresAt: Date?
        let confirmation: TokenConfirmation?
        let claims: JSONMembers
        /// An introspection answer's `token_type`.
        let tokenType: String?
    }

    /// `iss`, when known.
    public var issuer: String? {
        switch source {
        case .idToken(let token): return token.issuer
        case .accessToken(let token): return token.issuer
        case .described(let fields): return fields.issuer
        }
    }
    /// `sub`: the user, or the client itself for a client-credentials token. An introspection
    /// response may omit it.
    public var subject: String? {
        switch source {
        case .idToken(let token): return token.subject
        case .accessToken(let token): return token.subject
        case .described(let fields): return fields.subject
        }
    }
    /// The client the token was issued to: `client_id` of an access token; `azp`, else the
    /// single `aud`, of an ID token.
    public var clientID: String? {
        switch source {
        case .idToken(let token):
            if let party = token.authorizedParty { return party }
            let audiences = token.audiences
            return audiences.count == 1 ? audiences[0] : nil
        case .accessToken(let token): return token.clientID
        case .described(let fields): return fields.clientID
        }
    }
    /// What the token allows; an ID token allows no scope.
    public var scopes: OAuthScopes {
        switch source {
        case .idToken: return .none
        case .accessToken(let token): return token.scopes
        case .described(let fields): return fields.scopes
        }
    }
    /// `exp`, when known.
    public var expiresAt: Date? {
        switch source {
        case .idToken(let token): return token.expiresAt
        case .accessToken(let token): return token.expiresAt
        case .described(let fields): return fields.expiresAt
        }
    }
    /// `cnf`, when the token is bound to a key (DPoP checks ``TokenConfirmation/jkt``).
    public var confirmation: TokenConfirmation? {
        switch source {
        case .idToken: return nil
        case .accessToken(let token): return token.confirmation
        case .described(let fields): return fields.confirmation
        }
    }
    /// What the token is bound to, from `confirmation` (an ID token's own `cnf` too) and an
    /// introspected `token_type`: how a request may present it (``TokenBinding/check(presentedWith:)``).
    public var binding: TokenBinding {
        switch source {
        case .idToken(let token): return Self.binding(of: token.claims)
        case .accessToken(let token): return TokenBinding(confirmation: token.confirmation)
        case .described(let fields): return TokenBinding(confirmation: fields.confirmation, tokenType: fields.tokenType)
        }
    }
    /// The token's claims, or the members of the introspection response.
    public var claims: JSONMembers {
        switch source {
        case .idToken(let token): return token.claims
        case .accessToken(let token): return token.claims
        case .described(let fields): return fields.claims
        }
    }
    /// The verified ID token, for kind ``Kind/idToken``.
    public var idToken: IDToken? {
        if case .idToken(let token) = source { return token }
        return nil
    }
    /// The verified access token, for kind ``Kind/accessToken``.
    public var accessToken: AccessToken? {
        if case .accessToken(let token) = source { return token }
        return nil
    }

    /// A verified token of any kind, from its parts (an introspection response, a verifier of
    /// your own). `tokenType` is an introspection answer's `token_type`: `DPoP` binds the token
    /// even without `confirmation` (``TokenBinding``).
    public init(
        kind: Kind, providerID: String?, issuer: String?, subject: String?, clientID: String?, scopes: OAuthScopes, expiresAt: Date?,
        confirmation: TokenConfirmation?, claims: JSONMembers, tokenType: String? = nil
    ) {
        self.kind = kind
        self.providerID = providerID
        self.source = .described(
            Described(
                issuer: issuer, subject: subject, clientID: clientID, scopes: scopes, expiresAt: expiresAt, confirmation: confirmation,
                claims: claims, tokenType: tokenType))
    }

    /// A verified JWT access token, from the provider `providerID` names when known.
    public init(accessToken: AccessToken, providerID: String?) {
        kind = .accessToken
        self.providerID = providerID
        source = .accessToken(accessToken)
    }

    /// A verified ID token of the provider `providerID` names (`google.com`, `oidc.corp`).
    public init(idToken: IDToken, providerID: String?) {
        kind = .idToken
        self.providerID = providerID
        source = .idToken(idToken)
    }

    /// The binding an ID token's `cnf` states (the ID-token rules do not read `cnf`; one that an
    /// ID token carries still binds it); a malformed one is ``TokenBinding/unverifiable(_:)``.
    private static func binding(of claims: JSONMembers) -> TokenBinding {
        do throws(FederateError) {
            return TokenBinding(confirmation: try TokenConfirmation(in: claims))
        } catch {
            return .unverifiable(error.message)
        }
    }

    /// This identity, proven by `proof`: a DPoP presentation records the proof it checked
    /// against ``confirmation`` here.
    package func confirmed(by proof: DPoPProof) -> VerifiedToken {
        var copy = self
        copy.dpopProof = proof
        return copy
    }

    public var description: String {
        "VerifiedToken(\(kind), sub: \(subject ?? "-"), client_id: \(clientID ?? "-"), scope: \(scopes))"
    }
}
