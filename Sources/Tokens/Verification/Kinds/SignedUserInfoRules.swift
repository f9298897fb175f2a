extension ClaimRules {
    /// Signed UserInfo responses (OpenID Connect Core §5.3.2): `typ` absent or `JWT`; no
    /// `events`; `sub`; `iss` and `aud`, checked when present (the spec says they SHOULD be);
    /// `exp`, `iat` and `nbf` checked when present. That the `sub` equals the ID token's is
    /// checked by `OpenIDClient/userInfo(accessToken:expectedSubject:)`.
    package static func signedUserInfo(issuer: String, clientID: String) -> ClaimRules {
        [
            ExplicitTypeRule.jwt, ForbiddenClaimRule.noEvents, SubjectRule(), IssuerRule([issuer], required: false),
            AudienceRule([clientID], required: false), ExpiryRule(required: false), IssuedAtRule(required: false), NotBeforeRule(),
        ]
    }
}
