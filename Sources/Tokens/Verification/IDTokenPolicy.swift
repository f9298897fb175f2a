/// What an ID token must satisfy: one value, supplied by the caller or a provider module.
/// A value: a client or verifier keeps its own copy, which nothing changes after construction.
public struct IDTokenPolicy: Sendable {
    /// Accepted `iss` values, compared byte for byte. Google has two.
    public var issuers: IdentifierSet
    /// Accepted client IDs: `aud` (string or array) must contain one of them, byte for byte.
    public var audiences: IdentifierSet
    /// Accepted `azp` values. `nil` means the same as `audiences`. When `aud` has several
    /// values, `azp` is required; when present, it must be in this set.
    public var authorizedParties: IdentifierSet?
    /// Algorithms a token may be signed with.
    public var allowedAlgorithms: Set<JWSAlgorithm>
    /// The secret for HS256/384/512, when the provider signs ID tokens with the client secret.
    public var hmacSecret: HMACSecret?
    /// Leeway for `exp`, `iat`, `nbf` and `auth_time`. Default 60 seconds.
    public var clockTolerance: Duration
    /// When set, `auth_time` is required and must be no older than this.
    public var maxAge: Duration?
    /// Claims that must be present in addition to the standard required ones.
    public var requiredClaims: Set<String>
    /// Size and nesting limits.
    public var limits: JWSLimits
    /// Rules a provider adds to the ID-token kind's (run after them), such as Google's
    /// hosted-domain rule.
    package var additionalRules: ClaimRules
    /// A multi-tenant issuer (Microsoft Entra's `{tenantid}` template): when set, `iss` is
    /// checked by this rule, against the token's own tenant, instead of against ``issuers``.
    public var tenantIssuer: TenantIssuerRule?
    /// Whether any string `iss` passes (`IssuerRule.anyIssuer`) instead of ``issuers``: the
    /// command line's `verify --jwks` without `--expected-issuer`.
    package var acceptsAnyIssuer = false

    /// Creates a policy. `allowedAlgorithms` defaults to RS256, the one algorithm every
    /// OpenID provider must support; use `init(metadata:clientID:)` (FederateRelyingParty) to take the provider's
    /// advertised algorithms.
    public init(
        issuers: IdentifierSet,
        audiences: IdentifierSet,
        allowedAlgorithms: Set<JWSAlgorithm> = [.rs256],
        authorizedParties: IdentifierSet? = nil,
        hmacSecret: HMACSecret? = nil,
        clockTolerance: Duration = .seconds(60),
        maxAge: Duration? = nil,
        requiredClaims: Set<String> = [],
        limits: JWSLimits = .default,
        additionalRules: ClaimRules = [],
        tenantIssuer: TenantIssuerRule? = nil
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.allowedAlgorithms = allowedAlgorithms
        self.authorizedParties = authorizedParties
        self.hmacSecret = hmacSecret
        self.clockTolerance = clockTolerance
        self.maxAge = maxAge
        self.requiredClaims = requiredClaims
        self.limits = limits
        self.additionalRules = additionalRules
        self.tenantIssuer = tenantIssuer
    }

    /// A policy for one issuer and one client ID.
    package init(issuer: String, clientID: String, allowedAlgorithms: Set<JWSAlgorithm> = [.rs256]) {
        self.init(issuers: [issuer], audiences: [clientID], allowedAlgorithms: allowedAlgorithms)
    }
}

extension IDTokenPolicy {
    /// The ID-token kind's rules for one verification, in the order they run (OpenID
    /// Connect Core §3.1.3.7; `Docs/Verification.md`): explicit type, no `events`, `iss`
    /// (`IssuerRule`, or the ``tenantIssuer`` rule when the issuer is a tenant template),
    /// `sub`, `aud`, `azp`, `exp`, `iat`, `nbf`, `nonce` (when one was sent), `auth_time`
    /// (with `max_age`), `at_hash` and `c_hash` (when given the values), required claims,
    /// the sign-in's ``AuthenticationRequirement`` (when it requested one).
    package func rules(for expectations: IDTokenExpectations) -> ClaimRules {
        var rules: ClaimRules = [
            ExplicitTypeRule.jwt, ForbiddenClaimRule.noEvents, issuerRule, SubjectRule(),
            AudienceRule(audiences),
            AuthorizedPartyRule(authorizedParties ?? audiences), ExpiryRule(), IssuedAtRule(), NotBeforeRule(),
        ]
        if let nonce = expectations.nonce { rules.append(NonceRule(expected: nonce)) }
        rules.append(AuthTimeRule(maximumAge: expectations.maxAge ?? maxAge))
        if let accessToken = expectations.accessToken { rules.append(TokenHashRule.accessToken(accessToken)) }
        if let code = expectations.authorizationCode { rules.append(TokenHashRule.authorizationCode(code)) }
        if !requiredClaims.isEmpty { rules.append(RequiredClaimsRule(requiredClaims)) }
        if let authentication = expectations.authentication { rules.append(authentication) }
        rules.append(contentsOf: additionalRules)
        return rules
    }
}

extension IDTokenPolicy {
    /// The rule that checks `iss`: the tenant template's when there is one, else ``issuers``.
    var issuerRule: any ClaimRule {
        if let tenantIssuer { return TenantIssuerCheck(rule: tenantIssuer) }
        return acceptsAnyIssuer ? IssuerRule.anyIssuer : IssuerRule(issuers)
    }
}

/// Per-verification expectations: what only this sign-in knows.
public struct IDTokenExpectations: Sendable {
    /// The nonce sent in the authorization request; the token's `nonce` must equal it.
    package var nonce: String?
    /// The access token issued with the ID token; checked against `at_hash` when present.
    package var accessToken: String?
    /// The authorization code; checked against `c_hash` when present.
    package var authorizationCode: String?
    /// Overrides the policy's `max_age` for this sign-in.
    package var maxAge: Duration?
    /// The `acr`/`amr` this sign-in demanded (an essential `acr` in its claims request):
    /// checked after the policy's own rules, before its `IDTokenPolicy.additionalRules`.
    package var authentication: AuthenticationRequirement?

    /// Creates expectations; everything is optional. The instant of verification is the
    /// verifier's clock (`IDTokenVerifier.clock`), not an expectation.
    public init(
        nonce: String? = nil, accessToken: String? = nil, authorizationCode: String? = nil, maxAge: Duration? = nil,
        authentication: AuthenticationRequirement? = nil
    ) {
        self.nonce = nonce
        self.accessToken = accessToken
        self.authorizationCode = authorizationCode
        self.maxAge = maxAge
        self.authentication = authentication
    }
}
