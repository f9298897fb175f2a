import FederateTokens

/// Google's `hd` claim: when accepted domains are configured, the ID token's `hd` must be one
/// of them, byte for byte. Taken from the token only, never from the request (the `hd`
/// request parameter is a hint to the account chooser). Broken:
/// `FederateError/Code/hostedDomainMismatch`.
struct HostedDomainRule: ClaimRule {
    /// The accepted Workspace domains; empty accepts any account, with or without `hd`.
    let accepted: IdentifierSet

    /// Creates the rule.
    init(_ accepted: IdentifierSet) {
        self.accepted = accepted
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard !accepted.isEmpty else { return }
        // `hd` of another type accepts no domain: the same refusal as a missing one.
        guard let domain = try? token.string("hd"), accepted.contains(domain) else {
            throw FederateError(.hostedDomainMismatch, "the account is not in an accepted Google Workspace domain")
        }
    }
}
