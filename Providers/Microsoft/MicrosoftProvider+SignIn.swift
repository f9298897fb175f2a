public import FederateOIDC
public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

/// Sign-ins whose credential's email is never marked verified (Entra's `email` is not verified
/// by Microsoft; see ``MicrosoftAccount``); Entra has no RFC 7009 revocation endpoint, so
/// revoking does nothing.
extension MicrosoftProvider: OpenIDSignInProvider {
    /// RP-initiated logout, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(logout: self, bearerTokens: self, warming: openIDProvider, tokenRefresh: openIDProvider)
    }

    /// A credential from an ID token obtained elsewhere (an app's MSAL sign-in sent to the
    /// server), verified like a sign-in's: tenant template and list, this client in `aud`, `nonce`
    /// when `rawNonce` is given.
    public func credential(idToken: String, rawNonce: String? = nil) async throws(FederateError) -> Credential {
        try await openIDProvider.credential(idToken: idToken, rawNonce: rawNonce)
    }
}

extension MicrosoftProvider: ProviderLogoutSource {
    /// Entra's `end_session_endpoint` (`/oauth2/v2.0/logout` of the authority) with
    /// `id_token_hint`, `post_logout_redirect_uri`, `client_id` and `state`. Entra signs the
    /// user out of the session the hint names and sends the browser back only to a front-channel
    /// logout or redirect URI registered in the app registration.
    public func endSessionURL(_ request: ProviderLogoutRequest) async throws(FederateError) -> String? {
        let client = try await client()
        guard let endpoint = client.metadata.endSessionEndpoint else { return nil }
        try EndpointSecurity.validate(endpoint, field: "end_session_endpoint")
        var parameters: [(String, String)] = [("client_id", client.clientID)]
        if let hint = request.idTokenHint { parameters.append(("id_token_hint", hint)) }
        parameters += [("post_logout_redirect_uri", request.postLogoutRedirectURI), ("state", request.state)]
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormURLEncoding.encode(parameters)
    }
}

extension MicrosoftProvider: BearerTokenSource {
    /// This provider's ID tokens for its client, verified like a sign-in's with keys from
    /// the provider's cache, discovered on first use.
    public func bearerVerifier() -> any TokenVerifier {
        DeferredTokenVerifier { () async throws(FederateError) in
            IDTokenBearerVerifier(providerID: Self.providerID, verifier: try await client().idTokenVerifier)
        }
    }
}
