extension ClaimRules {
    /// RFC 9068 JWT access tokens, as a resource server checks them (§4): `typ` `at+jwt`
    /// (or `application/at+jwt`), required, so an ID token is never taken for an access token
    /// (an ID token's `typ` is absent or `JWT`, which the ID-token rules require in turn);
    /// no `events`; `iss`; `sub`; `aud` containing one of this API's resource identifiers;
    /// `exp` and `iat`, both required; `nbf` when present; `client_id` and `jti`, non-empty;
    /// `scope` in RFC 6749's grammar when present; `auth_time` not in the future (and no older
    /// than `maxAge` when given); `acr` a string when present; `cnf`, when present, a binding
    /// this server can check (``TokenBinding``: only `cnf.jkt`).
    public static func accessToken(issuers: IdentifierSet, resources: IdentifierSet, maxAge: Duration? = nil) -> ClaimRules {
        [
            ExplicitTypeRule.accessToken, ForbiddenClaimRule.noEvents, IssuerRule(issuers), SubjectRule(), AudienceRule(resources),
            ExpiryRule(), IssuedAtRule(), NotBeforeRule(), NonEmptyStringClaimRule("client_id"), NonEmptyStringClaimRule("jti"),
            ScopeClaimRule(), AuthTimeRule(maximumAge: maxAge), OptionalStringClaimRule("acr"), ConfirmationRule(),
        ]
    }
}
