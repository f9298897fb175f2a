/// A claim that must not be present: `events` in an ID token (a logout or security event
/// token is not an ID token), `nonce` in a logout token. Broken: the rule's ``code``.
struct ForbiddenClaimRule: TimeIndependentClaimRule {
    /// The claim that must be absent.
    let name: String
    private let key: ClaimKey
    /// The error code when it is present.
    let code: FederateError.Code

    /// Creates the rule.
    init(_ name: String, code: FederateError.Code) {
        self.name = name
        self.key = ClaimKey(name)
        self.code = code
    }

    /// An ID token (or another plain JWT) never carries `events`.
    static let noEvents = ForbiddenClaimRule("events", code: .tokenTypeMismatch)

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard !token.claims.contains(key) else { throw FederateError(code, "the token must not contain '\(name)'") }
    }
}
