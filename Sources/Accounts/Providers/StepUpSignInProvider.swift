public import FederateTokens
public import FederateRelyingParty

/// The step-up capability of a ``SignInProvider`` (`ProviderCapabilities.stepUp`): asking
/// the provider for an authentication level, the `acr_values`, `max_age` and `claims` of a
/// `StepUpRequest`, checked on the ID token that returns. `OIDCProvider` has it; the server's
/// start route uses it when the request names `acr_values` or `max_age`.
public protocol StepUpSignInProvider: Sendable {
    /// Builds an authorization request like ``SignInProvider/beginSignIn(_:)``, asking for
    /// `stepUp`'s level; what it demands is sealed into the pending authorization.
    func beginSignIn(_ request: SignInRequest, stepUp: StepUpRequest) async throws(FederateError) -> BuiltAuthorizationRequest
}
