/// `iss` is one of the accepted issuers, byte for byte (``IdentifierSet``).
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``, else the rule passes.
/// Not a string: ``FederateError/Code/invalidClaim``. Another issuer:
/// ``FederateError/Code/issuerMismatch``.
public struct IssuerRule: ClaimRule {
    /// The accepted issuers.
    public let accepted: IdentifierSet
    /// Whether `iss` must be present.
    public let required: Bool

    /// Creates the rule.
    public init(_ accepted: IdentifierSet, required: Bool = true) {
        self.accepted = accepted
        self.required = required
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let issuer = try token.string("iss") else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'iss' is missing") }
            return
        }
        guard accepted.contains(issuer) else {
            throw FederateError(.issuerMismatch, "issuer '\(issuer.prefix(200))' is not accepted")
        }
    }
}
