extension ClaimRules {
    /// Federate's own session tokens (`AccountService/issueSession(uid:authTime:)`): `typ`
    /// `federate-session+jwt` (so a session token is never taken for an ID token, nor an ID
    /// token for a session, and either is refused as `token_type_mismatch`); no `events`; `iss` the service; `sub` (the uid); `sid`; `iat`, `exp`
    /// and `auth_time`, all required.
    package static func sessionToken(issuer: String) -> ClaimRules {
        [
            ExplicitTypeRule.sessionToken, ForbiddenClaimRule.noEvents, IssuerRule([issuer]), SubjectRule(),
            NonEmptyStringClaimRule("sid"), IssuedAtRule(), ExpiryRule(), AuthTimeRule(required: true),
        ]
    }
}
