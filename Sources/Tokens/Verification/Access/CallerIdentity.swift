package import Foundation

/// Who called an API, from the token the request presented: an ID token, a JWT access token
/// (RFC 9068) or an introspected token (RFC 7662). What every kind has in common is typed;
/// the verified token itself stays available (`idToken`, `accessToken`, ``claims``).
public struct CallerIdentity: Sendable, CustomStringConvertible {
    /// Which kind of token established the identity.
    package struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The snake_case name.
        package let rawValue: String
        /// A kind named `rawValue`.
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// An OpenID Connect ID token (an app's sign-in token sent to its own backend).
        package static let idToken = Kind(rawValue: "id_token")
        /// An RFC 9068 JWT access token, verified locally.
        package static let accessToken = Kind(rawValue: "access_token")
        /// An access token the authorization server vouched for by introspection (RFC 7662).
        package static let introspection = Kind(rawValue: "introspection")
    }

    /// The kind of token.
    package let kind: Kind
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
    package var issuer: String? {
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
    package var expiresAt: Date? {
        switch source {
        case .idToken(let token): return token.expiresAt
        case .accessToken(let token): return token.expiresAt
        case .described(let fields): return fields.expiresAt
        }
    }
    /// `cnf`, when the token is bound to a key (DPoP checks ``TokenConfirmation/jkt``).
    package var confirmation: TokenConfirmation? {
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
    /// The ID token, for kind `Kind.idToken`.
    package var idToken: IDToken? {
        if case .idToken(let token) = source { return token }
        return nil
    }
    /// The access token, for kind `Kind.accessToken`.
    package var accessToken: AccessToken? {
        if case .accessToken(let token) = source { return token }
        return nil
    }

    /// An identity of any kind, from its parts (an introspection response, a verifier of your
    /// own). `tokenType` is an introspection answer's `token_type`: `DPoP` binds the token
    /// even without `confirmation` (``TokenBinding``).
    package init(
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

    /// The identity of a verified JWT access token.
    package init(accessToken: AccessToken, providerID: String?) {
        kind = .accessToken
        self.providerID = providerID
        source = .accessToken(accessToken)
    }

    /// The identity of a verified ID token.
    package init(bearer: BearerIdentity) {
        kind = .idToken
        providerID = bearer.providerID
        source = .idToken(bearer.idToken)
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
    package func confirmed(by proof: DPoPProof) -> CallerIdentity {
        var copy = self
        copy.dpopProof = proof
        return copy
    }

    /// The ID-token identity, for kind `Kind.idToken` (what ``BearerTokenVerifier`` returns).
    public var bearer: BearerIdentity? {
        guard let idToken, let providerID else { return nil }
        return BearerIdentity(providerID: providerID, idToken: idToken)
    }

    public var description: String {
        "CallerIdentity(\(kind), sub: \(subject ?? "-"), client_id: \(clientID ?? "-"), scope: \(scopes))"
    }
}
