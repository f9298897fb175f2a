import FederateTokens

/// An RFC 7662 introspection response (§2.2), read strictly.
///
/// `active` must be the JSON Boolean `true` or `false`: a string `"true"`, a number or an
/// absent member means the endpoint is not answering RFC 7662, which is
/// `FederateError.Code.introspectionFailed`, never an active token. For an active token
/// each member Federate reads is type-checked (`exp`, `iat`, `nbf` as NumericDates, `scope`
/// in RFC 6749's grammar, `aud` a string or an array of strings); a malformed one is
/// `FederateError.Code.invalidClaim`, and a `cnf` that is not an object (or a malformed
/// `cnf.jkt`) is `FederateError.Code.tokenBindingMismatch`. An inactive response carries nothing else.
struct IntrospectionResponse: Sendable {
    /// `active`.
    let active: Bool
    /// `scope` (none when absent or inactive).
    let scopes: OAuthScopes
    /// `client_id`.
    let clientID: String?
    /// `username`.
    let username: String?
    /// `token_type` (`Bearer`, `DPoP`).
    let tokenType: String?
    /// `exp`.
    let expiresAt: NumericDate?
    /// `iat`.
    let issuedAt: NumericDate?
    /// `nbf`.
    let notBefore: NumericDate?
    /// `sub`.
    let subject: String?
    /// `aud`, as a list (`nil` when absent).
    let audiences: [String]?
    /// `iss`.
    let issuer: String?
    /// `jti`.
    let jwtID: String?
    /// `cnf`, when the token is bound to a key.
    let confirmation: TokenConfirmation?
    /// What the token is bound to, from ``confirmation`` and ``tokenType``.
    var binding: TokenBinding { TokenBinding(confirmation: confirmation, tokenType: tokenType) }
    /// Every member of the response (for an inactive token, only `active`).
    let members: [String: JSONValue]

    /// Parses a response body.
    init(json body: [UInt8]) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 16)).parseObject(body)
        } catch {
            throw FederateError(.introspectionFailed, "the introspection response is not a JSON object")
        }
        try self.init(members: object)
    }

    /// Reads a response already parsed.
    init(members object: [String: JSONValue]) throws(FederateError) {
        guard case .bool(let active)? = object["active"] else {
            throw FederateError(.introspectionFailed, "the introspection response has no Boolean 'active'")
        }
        self.active = active
        guard active else {
            self.members = ["active": false]
            scopes = .none
            clientID = nil
            username = nil
            tokenType = nil
            expiresAt = nil
            issuedAt = nil
            notBefore = nil
            subject = nil
            audiences = nil
            issuer = nil
            jwtID = nil
            confirmation = nil
            return
        }
        func string(_ name: String) throws(FederateError) -> String? {
            guard let value = object[name] else { return nil }
            guard case .string(let text) = value else { throw FederateError(.invalidClaim, "introspection '\(name)' is not a string") }
            return text
        }
        func date(_ name: String) throws(FederateError) -> NumericDate? {
            guard let value = object[name] else { return nil }
            guard let date = NumericDate(json: value) else {
                throw FederateError(.invalidClaim, "introspection '\(name)' is not a NumericDate (a finite JSON number from 0 to 2^53)")
            }
            return date
        }
        members = object
        scopes = try string("scope").map { (text) throws(FederateError) in try OAuthScopes(parsing: text) } ?? .none
        clientID = try string("client_id")
        username = try string("username")
        tokenType = try string("token_type")
        expiresAt = try date("exp")
        issuedAt = try date("iat")
        notBefore = try date("nbf")
        subject = try string("sub")
        issuer = try string("iss")
        jwtID = try string("jti")
        switch object["aud"] {
        case nil: audiences = nil
        case .string(let single)?: audiences = [single]
        case .array(let entries)? where !entries.isEmpty && entries.allSatisfy({ $0.stringValue != nil }):
            audiences = entries.compactMap(\.stringValue)
        default: throw FederateError(.invalidClaim, "introspection 'aud' is neither a string nor an array of strings")
        }
        confirmation = try object["cnf"].map { (value) throws(FederateError) in try TokenConfirmation(json: value) }
    }
}
