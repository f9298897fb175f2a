extension ClaimRules {
    /// Federate's own session tokens (`AccountService/issueSession(uid:authTime:)`): `typ`
    /// absent or `JWT`; no `events`; `iss` the service; `sub` (the uid); `sid`; `iat`, `exp`
    /// and `auth_time`, all required.
    public static func sessionToken(issuer: String) -> ClaimRules {
        [
            ExplicitTypeRule.jwt, ForbiddenClaimRule.noEvents, IssuerRule([issuer]), SubjectRule(),
            NonEmptyStringClaimRule("sid"), IssuedAtRule(), ExpiryRule(), AuthTimeRule(required: true),
        ]
    }
}
