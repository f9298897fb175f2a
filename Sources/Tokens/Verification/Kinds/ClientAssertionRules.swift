extension ClaimRules {
    /// RFC 7523 client assertions (`private_key_jwt`), as an authorization server checks
    /// them: `iss` and `sub` both the client; `aud` one of the server's accepted audiences
    /// (its token endpoint, its issuer); `exp` required, at most `maximumLifetime`
    /// ahead; `iat` and `nbf` when present; `jti` (single use is the server's to enforce).
    package static func clientAssertion(clientID: String, audiences: IdentifierSet, maximumLifetime: Duration = .seconds(300)) -> ClaimRules
    {
        [
            ExplicitTypeRule.jwt, IssuerRule([clientID]), SubjectRule(accepted: [clientID]), AudienceRule(audiences), ExpiryRule(),
            IssuedAtRule(required: false), NotBeforeRule(), MaximumLifetimeRule(maximum: maximumLifetime), NonEmptyStringClaimRule("jti"),
        ]
    }
}
