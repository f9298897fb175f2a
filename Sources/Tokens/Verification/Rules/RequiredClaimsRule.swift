/// Each named claim is present, whatever its value. Absent: ``FederateError/Code/missingClaim``.
public struct RequiredClaimsRule: ClaimRule {
    /// The claims that must be present.
    public let names: [String]

    /// Creates the rule.
    public init(_ names: some Sequence<String>) {
        self.names = names.sorted()
    }

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        for name in names where token[name] == nil {
            throw FederateError(.missingClaim, "required claim '\(name)' is missing")
        }
    }
}
