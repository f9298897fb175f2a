extension ClaimRules {
    /// The `events` member that marks a back-channel logout token.
    package static let backChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// Back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4, §2.6): `typ`
    /// absent or `logout+jwt`; `iss`; `aud`; `iat` and `exp`, both required; `jti`; `events`
    /// with the back-channel logout event as an object; no `nonce`; `sub` or `sid`.
    /// Replays (a `jti` already seen) are the receiver's to refuse.
    package static func logoutToken(issuers: IdentifierSet, audiences: IdentifierSet) -> ClaimRules {
        [
            ExplicitTypeRule.logoutToken, IssuerRule(issuers), AudienceRule(audiences), IssuedAtRule(), ExpiryRule(), NotBeforeRule(),
            NonEmptyStringClaimRule("jti", code: .invalidLogoutToken),
            EventsRule(requiredMember: backChannelLogoutEvent, code: .invalidLogoutToken),
            ForbiddenClaimRule("nonce", code: .invalidLogoutToken), SubjectOrSessionRule(),
        ]
    }
}
