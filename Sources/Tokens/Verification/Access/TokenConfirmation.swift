/// A token's confirmation claim `cnf` (RFC 7800): the key the token is bound to.
///
/// DPoP-bound access tokens carry the SHA-256 JWK thumbprint of the client's key as
/// `cnf.jkt` (RFC 9449 §6); ``jkt`` exposes it, checked to be the base64url of 32 bytes.
/// Other confirmation methods (`x5t#S256` for mutual TLS, RFC 8705) stay in `members`;
/// ``TokenBinding`` says whether the token may be used at all, and how.
public struct TokenConfirmation: Sendable, Hashable {
    /// `jkt`: the base64url SHA-256 JWK thumbprint (RFC 7638) of the key the token is bound to.
    public let jkt: String?
    /// Every member of `cnf`, as sent.
    package let members: [String: JSONValue]

    /// Reads `cnf`: a JSON object whose `jkt`, when present, is the base64url (no padding) of a
    /// 32-byte SHA-256 thumbprint. Anything else is ``FederateError/Code/tokenBindingMismatch``:
    /// a binding that cannot be read cannot be checked, and never passes for no binding.
    package init(json value: JSONValue) throws(FederateError) {
        guard case .object(let members) = value else { throw FederateError(.tokenBindingMismatch, "'cnf' is not a JSON object") }
        if let jkt = members["jkt"] {
            guard case .string(let thumbprint) = jkt, thumbprint.utf8.count == 43, Base64URL.decode(thumbprint)?.count == 32 else {
                throw FederateError(.tokenBindingMismatch, "'cnf.jkt' is not a base64url SHA-256 thumbprint")
            }
            self.jkt = thumbprint
        } else {
            self.jkt = nil
        }
        self.members = members
    }

    /// Reads the `cnf` claim of a token's `claims` (a JWT access token's, or an introspection
    /// response's); `nil` when there is none: the token is not bound to a key.
    package init?(in claims: JSONMembers) throws(FederateError) {
        guard let cnf = claims.member(.cnf) else { return nil }
        try self.init(json: claims.value(of: cnf))
    }

    /// `cnf` binding a token to the key with the RFC 7638 `thumbprint` (what an authorization
    /// server puts in a DPoP-bound token).
    package static func binding(to thumbprint: String) -> JSONValue { .object(["jkt": .string(thumbprint)]) }
}
