public import Foundation

/// Who called an API, from the token the request presented: an ID token, a JWT access token
/// (RFC 9068) or an introspected token (RFC 7662). What every kind has in common is typed;
/// the verified token itself stays available (``idToken``, ``accessToken``, ``claims``).
public struct CallerIdentity: Sendable, CustomStringConvertible {
    /// Which kind of token established the identity.
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
    /// `iss`, when known.
    public let issuer: String?
    /// `sub`: the user, or the client itself for a client-credentials token. An introspection
    /// response may omit it.
    public let subject: String?
    /// The client the token was issued to: `client_id` of an access token; `azp`, else the
    /// single `aud`, of an ID token.
    public let clientID: String?
    /// What the token allows; an ID token allows no scope.
    public let scopes: OAuthScopes
    /// `exp`, when known.
    public let expiresAt: Date?
    /// `cnf`, when the token is bound to a key (DPoP checks ``TokenConfirmation/jkt``).
    public let confirmation: TokenConfirmation?
    /// What the token is bound to, from ``confirmation`` and an introspected `token_type`:
    /// how a request may present it (``TokenBinding/check(presentedWith:)``).
    public let binding: TokenBinding
    /// The token's claims, or the members of the introspection response.
    public let claims: [String: JSONValue]
    /// The ID token, for kind ``Kind/idToken``.
    public let idToken: IDToken?
    /// The access token, for kind ``Kind/accessToken``.
    public let accessToken: AccessToken?
    /// The DPoP proof (RFC 9449) the request came with, when it presented a DPoP-bound token:
    /// its key is the token's ``TokenConfirmation/jkt`` (``confirmed(by:)``).
    public private(set) var dpopProof: DPoPProof?

    /// An identity of any kind, from its parts (an introspection response, a verifier of your
    /// own). `tokenType` is an introspection answer's `token_type`: `DPoP` binds the token
    /// even without `confirmation` (``TokenBinding``).
    public init(
        kind: Kind, providerID: String?, issuer: String?, subject: String?, clientID: String?, scopes: OAuthScopes, expiresAt: Date?,
        confirmation: TokenConfirmation?, claims: [String: JSONValue], tokenType: String? = nil
    ) {
        self.kind = kind
        self.providerID = providerID
        self.issuer = issuer
        self.subject = subject
        self.clientID = clientID
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.confirmation = confirmation
        self.binding = TokenBinding(confirmation: confirmation, tokenType: tokenType)
        self.claims = claims
        self.idToken = nil
        self.accessToken = nil
    }

    /// The identity of a verified JWT access token.
    public init(accessToken: AccessToken, providerID: String?) {
        kind = .accessToken
        self.providerID = providerID
        issuer = accessToken.issuer
        subject = accessToken.subject
        clientID = accessToken.clientID
        scopes = accessToken.scopes
        expiresAt = accessToken.expiresAt
        confirmation = accessToken.confirmation
        binding = TokenBinding(confirmation: accessToken.confirmation)
        claims = accessToken.claims
        idToken = nil
        self.accessToken = accessToken
    }

    /// The identity of a verified ID token.
    public init(bearer: BearerIdentity) {
        kind = .idToken
        providerID = bearer.providerID
        issuer = bearer.idToken.issuer
        subject = bearer.idToken.subject
        let audiences = bearer.idToken.audiences
        clientID = bearer.idToken.authorizedParty ?? (audiences.count == 1 ? audiences[0] : nil)
        scopes = .none
        expiresAt = bearer.idToken.expiresAt
        confirmation = nil
        // The ID-token rules do not read `cnf`; one that an ID token carries still binds it.
        binding = bearer.idToken.claims["cnf"] == nil ? .bearer : Self.binding(of: bearer.idToken.claims)
        claims = bearer.idToken.claims
        idToken = bearer.idToken
        accessToken = nil
    }

    /// The binding `claims`' `cnf` states; a malformed one is ``TokenBinding/unverifiable(_:)``.
    private static func binding(of claims: [String: JSONValue]) -> TokenBinding {
        do throws(FederateError) {
            return TokenBinding(confirmation: try TokenConfirmation(in: claims))
        } catch {
            return .unverifiable(error.message)
        }
    }

    /// This identity, proven by `proof`: a DPoP presentation records the proof it checked
    /// against ``confirmation`` here.
    public func confirmed(by proof: DPoPProof) -> CallerIdentity {
        var copy = self
        copy.dpopProof = proof
        return copy
    }

    /// The ID-token identity, for kind ``Kind/idToken`` (what ``BearerTokenVerifier`` returns).
    public var bearer: BearerIdentity? {
        guard let idToken, let providerID else { return nil }
        return BearerIdentity(providerID: providerID, idToken: idToken)
    }

    public var description: String {
        "CallerIdentity(\(kind), sub: \(subject ?? "-"), client_id: \(clientID ?? "-"), scope: \(scopes))"
    }
}
