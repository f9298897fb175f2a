/// A claim that, when present, must be a string: `acr` of an access token. Absent: the rule
/// passes. Another type: ``FederateError/Code/invalidClaim``.
struct OptionalStringClaimRule: TimeIndependentClaimRule {
    /// The claim.
    let name: String
    private let key: ClaimKey

    /// Creates the rule.
    init(_ name: String) {
        self.name = name
        self.key = ClaimKey(name)
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        _ = try token.string(key, satisfies: { _ in true })
    }
}
