/// What a JWT access token (RFC 9068) must satisfy for one API: the issuers it trusts and the
/// API's resource identifier. A value, like ``IDTokenPolicy``.
///
/// ```swift
/// let policy = AccessTokenPolicy(issuers: ["https://login.example.com"], resources: ["https://api.example.com"])
/// ```
public struct AccessTokenPolicy: Sendable {
    /// Accepted `iss` values, byte for byte.
    package var issuers: IdentifierSet
    /// This API's resource identifiers (RFC 8707): `aud` must contain one of them.
    package var resources: IdentifierSet
    /// Algorithms a token may be signed with (RFC 9068 §4: never `none`; HMAC is not offered).
    package var allowedAlgorithms: Set<JWSAlgorithm>
    /// Leeway for `exp`, `iat`, `nbf` and `auth_time`. Default 60 seconds.
    package var clockTolerance: Duration
    /// When set, `auth_time` is required and must be no older than this.
    package var maxAge: Duration?
    /// Size and nesting limits.
    package var limits: JWSLimits
    /// Rules of the application's own, run after the access-token kind's.
    package var additionalRules: ClaimRules

    /// Creates a policy. `allowedAlgorithms` defaults to RS256, which RFC 9068 §2.1 requires
    /// every issuer to support.
    public init(
        issuers: IdentifierSet, resources: IdentifierSet, allowedAlgorithms: Set<JWSAlgorithm> = [.rs256],
        clockTolerance: Duration = .seconds(60), maxAge: Duration? = nil, limits: JWSLimits = .default, additionalRules: ClaimRules = []
    ) {
        self.issuers = issuers
        self.resources = resources
        self.allowedAlgorithms = allowedAlgorithms
        self.clockTolerance = clockTolerance
        self.maxAge = maxAge
        self.limits = limits
        self.additionalRules = additionalRules
    }

    /// A policy for one issuer and one resource identifier.
    package init(issuer: String, resource: String, allowedAlgorithms: Set<JWSAlgorithm> = [.rs256]) {
        self.init(issuers: [issuer], resources: [resource], allowedAlgorithms: allowedAlgorithms)
    }

    /// The rules, in the order they run: ``ClaimRules/accessToken(issuers:resources:maxAge:)``,
    /// then ``additionalRules``.
    package var rules: ClaimRules {
        var rules = ClaimRules.accessToken(issuers: issuers, resources: resources, maxAge: maxAge)
        rules.append(contentsOf: additionalRules)
        return rules
    }
}
