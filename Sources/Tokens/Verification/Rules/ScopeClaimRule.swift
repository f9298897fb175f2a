/// `scope`, when present, is a string in RFC 6749 §3.3's grammar with at most
/// `OAuthScopes.maximumCount` scopes (`OAuthScopes.validate(_:)`), so what a route
/// requires is compared with exactly what the issuer granted.
///
/// Absent: the token grants no scope and the rule passes. Not a string, or outside the
/// grammar: ``FederateError/Code/invalidClaim``.
struct ScopeClaimRule: TimeIndependentClaimRule {
    /// Creates the rule.
    init() {}

    func check(_ token: VerifiedJWT, context: ClaimContext) throws(FederateError) {
        guard let scope = try token.claims.stringMember(.scope) else { return }
        _ = try OAuthScopes.count(token.claims.withStringBytes(scope) { OAuthScopes.Shape($0) })
    }
}
