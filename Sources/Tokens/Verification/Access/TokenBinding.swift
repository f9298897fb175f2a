/// What an access token is bound to, and so how a request may present it: the one rule for
/// JWT access tokens (`cnf`, RFC 7800) and introspected tokens (`cnf` and `token_type`,
/// RFC 7662), whichever verified the token.
///
/// - ``bearer``: no `cnf`, and no `token_type` `DPoP`. Whoever holds the token may use it
///   (RFC 6750). The only binding `Authorization: Bearer` takes.
/// - ``dpop(thumbprint:)``: `cnf` is exactly `{"jkt": THUMBPRINT}` (RFC 9449 §6). Taken only
///   with a DPoP proof signed by that key.
/// - ``unverifiable(_:)``: any other confirmation, since a resource server must not accept a
///   binding it cannot check: `x5t#S256` (RFC 8705: Federate verifies no client
///   certificate), `jwk`, `jwe`, `jku`, `kid`, an unknown member, an empty `cnf`, `jkt` beside
///   another member, or `token_type` `DPoP` without `cnf.jkt`. Refused however it is
///   presented, with ``FederateError/Code/tokenBindingMismatch``, so a stolen
///   certificate-bound token never works as a bearer token.
///
/// A `cnf` that is not a JSON object, or whose `jkt` is not a SHA-256 thumbprint, never gets
/// this far: ``TokenConfirmation`` refuses it with the same code.
public enum TokenBinding: Sendable, Hashable {
    /// Not bound to any key: a bearer token.
    case bearer
    /// Bound to the DPoP key with this RFC 7638 thumbprint (`cnf.jkt`).
    case dpop(thumbprint: String)
    /// Bound in a way Federate cannot check; the reason names how.
    case unverifiable(String)

    /// How a request presents a token: the `Authorization` scheme.
    public enum Scheme: Sendable, Hashable {
        /// `Authorization: Bearer` (RFC 6750).
        case bearer
        /// `Authorization: DPoP` with a `DPoP` proof (RFC 9449 §7).
        case dpop
    }

    /// The binding of a token whose `cnf` is `confirmation` (`nil`: none) and whose
    /// introspection `token_type` is `tokenType` (`nil` for a JWT, or when the answer has none).
    package init(confirmation: TokenConfirmation?, tokenType: String? = nil) {
        let dpopType = tokenType.map { Self.isDPoP($0) } ?? false
        guard let confirmation else {
            self = dpopType ? .unverifiable("token_type is DPoP but the token has no cnf.jkt") : .bearer
            return
        }
        if let thumbprint = confirmation.jkt, confirmation.members.count == 1 {
            self = .dpop(thumbprint: thumbprint)
            return
        }
        guard !confirmation.members.isEmpty else {
            self = .unverifiable("cnf names no confirmation method")
            return
        }
        // Only registered names are repeated (the members are the token's, not ours to print).
        let known = Self.registeredMethods.filter { confirmation.members[$0] != nil }
        let unknown = confirmation.members.count > known.count ? ["an unregistered member"] : []
        let named = (known.map { "'\($0)'" } + unknown).joined(separator: ", ")
        self = .unverifiable("cnf confirms with \(named), which this server cannot check (only cnf.jkt alone, by DPoP)")
    }

    /// Refuses a binding no presentation can satisfy: ``unverifiable(_:)`` throws
    /// ``FederateError/Code/tokenBindingMismatch``. The access-token rules
    /// (`ConfirmationRule`) and introspection call it, so such a token fails verification.
    package func requireCheckable() throws(FederateError) {
        if case .unverifiable(let reason) = self { throw Self.cannotCheck(reason) }
    }

    /// Checks that a token bound this way may be presented with `scheme`, and returns, for
    /// DPoP, the thumbprint the proof's key must have (`nil` for Bearer).
    ///
    /// - Bearer takes only ``bearer``; any binding is ``FederateError/Code/tokenBindingMismatch``.
    /// - DPoP takes only ``dpop(thumbprint:)``; an unbound token is
    ///   ``FederateError/Code/dpopBindingMismatch``, an unverifiable one `token_binding_mismatch`.
    @discardableResult
    public func check(presentedWith scheme: Scheme) throws(FederateError) -> String? {
        switch self {
        case .unverifiable(let reason):
            throw Self.cannotCheck(reason)
        case .bearer:
            guard scheme == .bearer else {
                throw FederateError(.dpopBindingMismatch, "the access token is not DPoP-bound (it has no 'cnf.jkt')")
            }
            return nil
        case .dpop(let thumbprint):
            guard scheme == .dpop else {
                throw FederateError(
                    .tokenBindingMismatch, "this token is bound to a key (cnf.jkt): present it with a DPoP proof, not as Bearer")
            }
            return thumbprint
        }
    }

    private static func cannotCheck(_ reason: String) -> FederateError {
        FederateError(.tokenBindingMismatch, "the token is bound in a way this server cannot check: \(reason)")
    }

    /// The confirmation methods of RFC 7800 §3.1, RFC 8705 §3.1 and RFC 9449 §6.
    private static let registeredMethods = ["jkt", "x5t#S256", "jwk", "jwe", "jku", "kid"]

    /// `DPoP`, in any case (token types are case-insensitive, RFC 6749 §5.1).
    private static func isDPoP(_ type: String) -> Bool {
        type.utf8.elementsEqual("dpop".utf8) { byte, lower in byte == lower || (byte >= 0x41 && byte <= 0x5A && byte | 0x20 == lower) }
    }
}

extension FederateError.Code {
    /// The token is bound to a key and may not be used this way (answered 401
    /// `invalid_token`): a DPoP-bound token (`cnf.jkt`) presented as Bearer, or a binding
    /// this server cannot check presented at all (`cnf.x5t#S256` without mutual TLS, `jwk`,
    /// an unknown or malformed `cnf`, `token_type` `DPoP` without `cnf.jkt`).
    public static let tokenBindingMismatch: Self = "token_binding_mismatch"
}
