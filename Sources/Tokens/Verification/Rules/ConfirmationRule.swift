/// `cnf`, when present, is a binding this server can check (``TokenBinding``): exactly
/// `{"jkt": THUMBPRINT}`, a base64url SHA-256 thumbprint. Whether the caller proves possession
/// of that key is the presentation's to check (DPoP, RFC 9449), not this rule's; a token bound
/// any other way (`x5t#S256`, `jwk`, an unknown or malformed `cnf`) is refused here.
///
/// Broken: ``FederateError/Code/tokenBindingMismatch``.
struct ConfirmationRule: TimeIndependentClaimRule {
    /// Creates the rule.
    init() {}

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        try TokenBinding(confirmation: try TokenConfirmation(in: token.claims)).requireCheckable()
    }
}
