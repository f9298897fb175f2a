public import FederateAccounts
public import FederateTokens

extension OIDCProvider: ProviderEventSource {
    /// Back-channel logout; for a provider module, the route of its own events.
    public var eventRoutes: Set<ProviderEventRoute> { [events.route] }

    /// Verifies a delivery on ``eventRoutes`` (`invalid_request` on another route) with this
    /// provider's keys and client and returns what it means for the identities: for
    /// back-channel logout (`logout_token=…`, the logout-token rules of the one JWT pipeline),
    /// its logout event.
    public func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch {
        guard route == events.route else { throw FederateError(.invalidRequest, "this provider receives \(events.route.rawValue) only") }
        return try await events.read(body, providerID: id, client: try await client())
    }
}

extension OIDCProvider: ProviderLogoutSource {
    /// The provider's `end_session_endpoint` with `id_token_hint`, `post_logout_redirect_uri`,
    /// this client's `client_id` and `state`, or `nil` when the provider advertises none.
    public func endSessionURL(_ request: ProviderLogoutRequest) async throws(FederateError) -> String? {
        let client = try await client()
        guard client.metadata.endSessionEndpoint != nil else { return nil }
        return try RPInitiatedLogout.url(
            metadata: client.metadata, clientID: client.clientID, idTokenHint: request.idTokenHint,
            postLogoutRedirectURI: request.postLogoutRedirectURI, state: request.state)
    }
}
