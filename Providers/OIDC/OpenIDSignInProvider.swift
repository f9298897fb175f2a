public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

/// A provider module whose OpenID sign-in is an ``OIDCProvider`` configured with the module's
/// profile (Google, Apple, Microsoft): its provider ID, sign-ins and revocation are that
/// provider's, written once, and the module adds only what its provider does besides.
public protocol OpenIDSignInProvider: SignInProvider {
    /// The OpenID sign-in this provider is built on: its profile, client and caches.
    var openIDProvider: OIDCProvider { get }
}

extension OpenIDSignInProvider {
    /// The provider ID of ``openIDProvider``.
    public var providerID: String { openIDProvider.providerID }

    /// ``openIDProvider``'s authorization request for `request`.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await openIDProvider.beginSignIn(request)
    }

    /// ``openIDProvider``'s credential for the callback: the code flow finished, completed from
    /// UserInfo when the module uses it.
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        try await openIDProvider.completeSignIn(callback, pending: pending)
    }

    /// Revokes through ``openIDProvider``: the refresh token, else the access token, when the
    /// provider has a revocation endpoint.
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        try await openIDProvider.revoke(tokens)
    }
}
