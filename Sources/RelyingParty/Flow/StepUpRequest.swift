public import FederateTokens

/// What a step-up sign-in asks of the provider: the typed `acr_values`, `max_age` and
/// `claims` parameters, and the `acr`/`amr` requirement the returned ID token must meet.
///
/// ```swift
/// let stepUp = StepUpRequest(authentication: .phishingResistant, maxAge: .zero)
/// let built = try await client.authorizationRequest(providerID: "oidc.example", redirectURI: redirect, stepUp: stepUp)
/// ```
///
/// Everything it demands is sealed with the ``PendingAuthorization`` and checked when the ID
/// token returns: `max_age` needs an `auth_time` no older than it (`auth_too_old`), the
/// requirement (or an essential `acr` in `claims`) needs a matching `acr`/`amr`
/// (`insufficient_authentication_level`).
public struct StepUpRequest: Sendable, Hashable {
    /// `acr_values`, in order of preference; empty sends the requirement's accepted `acr` values.
    package var acrValues: [String]
    /// `max_age`: the longest since the user's last active authentication; `.zero` asks for a
    /// fresh one. The ID token's `auth_time` is then required and checked.
    package var maxAge: Duration?
    /// The `claims` parameter (an essential `acr` in it is checked).
    package var claims: ClaimsRequest?
    /// The `acr`/`amr` the ID token must show.
    package var authentication: AuthenticationRequirement?

    /// Creates a step-up request.
    public init(
        authentication: AuthenticationRequirement? = nil, acrValues: [String] = [], maxAge: Duration? = nil, claims: ClaimsRequest? = nil
    ) {
        self.authentication = authentication
        self.acrValues = acrValues
        self.maxAge = maxAge
        self.claims = claims
    }
}
