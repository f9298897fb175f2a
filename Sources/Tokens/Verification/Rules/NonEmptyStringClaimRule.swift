/// A claim that must be a non-empty string: `jti` of logout and security event tokens and
/// of client assertions, `sid` of session tokens. Absent or empty: the rule's ``code``;
/// not a string: ``FederateError/Code/invalidClaim``.
struct NonEmptyStringClaimRule: TimeIndependentClaimRule {
    /// The claim.
    let name: String
    private let key: ClaimKey
    /// The error code when it is absent or empty.
    let code: FederateError.Code

    /// Creates the rule.
    init(_ name: String, code: FederateError.Code = .missingClaim) {
        self.name = name
        self.key = ClaimKey(name)
        self.code = code
    }

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let nonEmpty = try token.string(key, satisfies: { !$0.isEmpty }), nonEmpty else {
            throw FederateError(code, "the token has no '\(name)'")
        }
    }
}
