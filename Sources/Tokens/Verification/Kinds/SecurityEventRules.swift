extension ClaimRules {
    /// Security event tokens (RFC 8417), such as Google's Cross-Account Protection (RISC)
    /// events: `typ` absent, `secevent+jwt` or `JWT`; `iss`; `aud`; `iat`, when present, not
    /// in the future; `jti`; `events` a non-empty object. `exp` is not checked: security
    /// events do not expire (RFC 8417 §2.2). De-duplication on `jti` is the receiver's.
    package static func securityEvent(issuers: IdentifierSet, audiences: IdentifierSet) -> ClaimRules {
        [
            ExplicitTypeRule.securityEvent, IssuerRule(issuers), AudienceRule(audiences), IssuedAtRule(required: false),
            NonEmptyStringClaimRule("jti", code: .invalidSecurityEvent), EventsRule(code: .invalidSecurityEvent),
        ]
    }
}
