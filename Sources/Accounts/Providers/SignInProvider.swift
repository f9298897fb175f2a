public import FederateTokens
public import FederateRelyingParty

/// A provider a server signs users in with: it builds the redirect and turns the callback
/// into a ``Credential`` for the account layer, and declares what else it can do
/// (``capabilities``). `OIDCProvider`, `GoogleProvider`, `AppleProvider` and
/// `MicrosoftProvider` conform; the server routes find providers in a ``ProviderRegistry``.
public protocol SignInProvider: Sendable {
    /// The provider ID its credentials carry (`google.com`, `apple.com`, `oidc.<name>`).
    var providerID: String { get }

    /// What the provider can do beyond signing users in. The default declares nothing.
    var capabilities: ProviderCapabilities { get }

    /// Builds the authorization request for `request`: where to send the browser and what to
    /// keep until the callback (seal it into a cookie with `PendingAuthorizationSealer`).
    func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest

    /// Checks the callback (query or `form_post` parameters) against `pending`, exchanges the
    /// code, verifies the ID token and returns the credential. Nothing is sent to the provider
    /// when the callback fails its checks.
    func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential

    /// Revokes the provider tokens of a credential (when its account is deleted). Providers
    /// without a revocation endpoint do nothing.
    func revoke(_ tokens: ProviderTokens) async throws(FederateError)
}

extension SignInProvider {
    /// Nothing beyond sign-in.
    public var capabilities: ProviderCapabilities { ProviderCapabilities() }
}
