/// Each named claim is present, whatever its value. Absent: ``FederateError/Code/missingClaim``.
struct RequiredClaimsRule: TimeIndependentClaimRule {
    /// The claims that must be present.
    let names: [String]
    private let keys: [ClaimKey]

    /// Creates the rule.
    init(_ names: some Sequence<String>) {
        self.names = names.sorted()
        self.keys = self.names.map(ClaimKey.init)
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        for key in keys where !token.claims.contains(key) {
            throw FederateError(.missingClaim, "required claim '\(key.name)' is missing")
        }
    }
}
