public import FederateTokens

/// Google's `hd` claim: when accepted domains are configured, the ID token's `hd` must be one
/// of them, byte for byte. Taken from the token only, never from the request (the `hd`
/// request parameter is a hint to the account chooser). Broken:
/// `FederateError/Code/hostedDomainMismatch`.
public struct HostedDomainRule: ClaimRule {
    /// The accepted Workspace domains; empty accepts any account, with or without `hd`.
    public let accepted: IdentifierSet

    /// Creates the rule.
    public init(_ accepted: IdentifierSet) {
        self.accepted = accepted
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard !accepted.isEmpty else { return }
        guard case .string(let domain)? = token.claims["hd"], accepted.contains(domain) else {
            throw FederateError(.hostedDomainMismatch, "the account is not in an accepted Google Workspace domain")
        }
    }
}
