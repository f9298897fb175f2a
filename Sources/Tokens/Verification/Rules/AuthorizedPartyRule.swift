/// `azp` (OpenID Connect Core §2): when present it must be an accepted party, byte for
/// byte; when `aud` has several values it is required. Broken: ``FederateError/Code/azpMismatch``.
struct AuthorizedPartyRule: TimeIndependentClaimRule {
    /// The accepted authorized parties.
    let accepted: IdentifierSet

    /// Creates the rule.
    init(_ accepted: IdentifierSet) {
        self.accepted = accepted
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        if let isAccepted = try token.string(.azp, satisfies: accepted.contains(bytes:)) {
            guard isAccepted else {
                let party = (try? token.string(.azp)) ?? ""
                throw FederateError(.azpMismatch, "'azp' '\(party.prefix(200))' is not an accepted client")
            }
        } else if let audiences = try token.audienceMatch({ _ in false }), audiences.count > 1 {
            throw FederateError(.azpMismatch, "'aud' has several values, so 'azp' is required")
        }
    }
}
