/// Each named claim is present, whatever its value. Absent: ``FederateError/Code/missingClaim``.
public struct RequiredClaimsRule: ClaimRule {
    /// The claims that must be present.
    public let names: [String]
    private let keys: [ClaimKey]

    /// Creates the rule.
    public init(_ names: some Sequence<String>) {
        self.names = names.sorted()
        self.keys = self.names.map(ClaimKey.init)
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        for key in keys where !token.claims.contains(key) {
            throw FederateError(.missingClaim, "required claim '\(key.name)' is missing")
        }
    }
}
