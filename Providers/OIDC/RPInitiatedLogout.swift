public import FederateRelyingParty
public import FederateTokens

/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0).
public enum RPInitiatedLogout {
    /// The URL to send the browser to so the provider ends its session, from the provider's
    /// `end_session_endpoint`. Throws `FederateError/Code/endpointNotAvailable` when the
    /// provider has none.
    ///
    /// - Parameters:
    ///   - metadata: the provider's discovery document, with its `end_session_endpoint`.
    ///   - clientID: this client's ID, sent as `client_id`.
    ///   - idTokenHint: the ID token the user signed in with (recommended by the spec).
    ///   - postLogoutRedirectURI: where the provider sends the browser afterwards; it must be
    ///     registered with the provider.
    ///   - state: echoed back to `postLogoutRedirectURI`.
    public static func url(
        metadata: ProviderMetadata, clientID: String, idTokenHint: String? = nil, postLogoutRedirectURI: String? = nil,
        state: String? = nil
    ) throws(FederateError) -> String {
        guard let endpoint = metadata.endSessionEndpoint else {
            throw FederateError(.endpointNotAvailable, "the provider advertises no end_session_endpoint")
        }
        try EndpointSecurity.validate(endpoint, field: "end_session_endpoint", destination: metadata.destination)
        var parameters: [(String, String)] = [("client_id", clientID)]
        if let idTokenHint { parameters.append(("id_token_hint", idTokenHint)) }
        if let postLogoutRedirectURI { parameters.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
        if let state { parameters.append(("state", state)) }
        let separator = endpoint.contains("?") ? "&" : "?"
        return endpoint + separator + FormURLEncoding.encode(parameters)
    }
}
