/// A claim that, when present, must be a string: `acr` of an access token. Absent: the rule
/// passes. Another type: ``FederateError/Code/invalidClaim``.
package struct OptionalStringClaimRule: ClaimRule {
    /// The claim.
    package let name: String
    private let key: ClaimKey

    /// Creates the rule.
    package init(_ name: String) {
        self.name = name
        self.key = ClaimKey(name)
    }

    package func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        _ = try token.string(key, satisfies: { _ in true })
    }
}
