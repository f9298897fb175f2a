/// `cnf`, when present, is a JSON object whose `jkt`, if any, is a base64url SHA-256
/// thumbprint (``TokenConfirmation``). Whether the caller proves possession of that key is
/// the presentation's to check (DPoP, RFC 9449), not this rule's.
///
/// Broken: ``FederateError/Code/invalidClaim``.
public struct ConfirmationRule: ClaimRule {
    /// Creates the rule.
    public init() {}

    public func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        _ = try TokenConfirmation(in: token.claims)
    }
}
