/// The confirmation claim `cnf` (RFC 7800) of a sender-constrained access token, as DPoP
/// uses it: `cnf.jkt`, the thumbprint of the key the token is bound to (RFC 9449 §6.1).
public enum ConfirmationClaim {
    /// `cnf.jkt` of a token's claims (a JWT access token's, or an introspection response's);
    /// `nil` when the token is not DPoP-bound. ``FederateError/Code/invalidClaim`` when `cnf`
    /// is present but not an object, or its `jkt` not a non-empty string.
    public static func thumbprint(in claims: [String: JSONValue]) throws(FederateError) -> String? {
        guard let cnf = claims["cnf"] else { return nil }
        guard case .object(let members) = cnf else { throw FederateError(.invalidClaim, "'cnf' is not an object") }
        guard let jkt = members["jkt"] else { return nil }
        guard case .string(let value) = jkt, !value.isEmpty else { throw FederateError(.invalidClaim, "'cnf.jkt' is not a non-empty string") }
        return value
    }

    /// `cnf` binding a token to the key with `thumbprint`.
    public static func binding(to thumbprint: String) -> JSONValue { .object(["jkt": .string(thumbprint)]) }
}
