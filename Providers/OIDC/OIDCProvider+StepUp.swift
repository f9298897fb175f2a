public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

extension OIDCProvider: StepUpSignInProvider {
    /// Builds a step-up authorization request with this provider's scopes, custom parameters
    /// and ``delivery``: `acr_values`, `max_age` and `claims` from `stepUp`, checked on the ID token.
    public func beginSignIn(_ request: SignInRequest, stepUp: StepUpRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await client().authorizationRequest(
            providerID: id, redirectURI: request.redirectURI, delivery: delivery, scopes: scopes, loginHint: request.loginHint,
            customParameters: customParameters, intent: request.intent, stepUp: stepUp)
    }
}
