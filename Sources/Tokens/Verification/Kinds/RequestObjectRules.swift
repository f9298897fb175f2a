extension ExplicitTypeRule {
    /// Request objects (RFC 9101 §10.8): `typ` must be `oauth-authz-req+jwt`, so no other JWT
    /// the client signed (a client assertion, an ID token it forwards) passes as a request.
    package static let requestObject = ExplicitTypeRule(accepted: ["oauth-authz-req+jwt"], allowsAbsent: false)
}

extension ClaimRules {
    /// Signed authorization request objects (JAR, RFC 9101), as an authorization server
    /// checks them: `typ` `oauth-authz-req+jwt`; `iss` the client; `aud` one of the server's
    /// identifiers (its issuer); `exp` required and at most `maximumLifetime` after `iat`;
    /// `iat` and `nbf` when present; a `jti`.
    package static func requestObject(clientID: String, audiences: IdentifierSet, maximumLifetime: Duration = .seconds(600)) -> ClaimRules {
        [
            ExplicitTypeRule.requestObject, IssuerRule([clientID]), AudienceRule(audiences), ExpiryRule(), IssuedAtRule(required: false),
            NotBeforeRule(), MaximumLifetimeRule(maximum: maximumLifetime), NonEmptyStringClaimRule("jti"),
        ]
    }
}
