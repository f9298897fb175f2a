/// `iss` is one of the accepted issuers, byte for byte (``IdentifierSet``).
///
/// Absent: ``FederateError/Code/missingClaim`` when ``required``, else the rule passes.
/// Not a string: ``FederateError/Code/invalidClaim``. Another issuer:
/// ``FederateError/Code/issuerMismatch``.
package struct IssuerRule: TimeIndependentClaimRule {
    /// The accepted issuers.
    package let accepted: IdentifierSet
    /// Whether `iss` must be present.
    package let required: Bool
    /// Whether any string `iss` is accepted (``anyIssuer``).
    private let acceptsAny: Bool

    /// Creates the rule.
    package init(_ accepted: IdentifierSet, required: Bool = true) {
        self.accepted = accepted
        self.required = required
        self.acceptsAny = false
    }

    /// `iss` required and a string, of any value: `federate verify --jwks` without
    /// `--expected-issuer`, which reports the issuer rather than checking it.
    static let anyIssuer = IssuerRule()

    private init() {
        self.accepted = []
        self.required = true
        self.acceptsAny = true
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let isAccepted = try token.string(.iss, satisfies: { acceptsAny || accepted.contains(bytes: $0) }) else {
            guard !required else { throw FederateError(.missingClaim, "required claim 'iss' is missing") }
            return
        }
        guard isAccepted else {
            let issuer = (try? token.string(.iss)) ?? ""
            throw FederateError(.issuerMismatch, "issuer '\(issuer.prefix(200))' is not accepted")
        }
    }
}
