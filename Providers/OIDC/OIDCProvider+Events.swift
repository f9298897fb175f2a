public import FederateAccounts
import FederateRelyingParty
public import FederateTokens
import Foundation

extension OIDCProvider: ProviderEventSource {
    /// Back-channel logout (OpenID Connect Back-Channel Logout 1.0).
    public var eventRoutes: Set<ProviderEventRoute> { [.backChannelLogout] }

    /// Verifies a back-channel logout request (`logout_token=…`, the logout-token rules of the
    /// one JWT pipeline, with this provider's keys and client) and returns its logout event.
    public func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch {
        guard route == .backChannelLogout else { throw FederateError(.invalidRequest, "this provider receives back-channel logout only") }
        guard let text = String(validating: body, as: UTF8.self), let token = try FormURLEncoding.decode(text)["logout_token"] else {
            throw FederateError(.invalidRequest, "the body has no logout_token")
        }
        let client = try await client()
        let logout = try await BackChannelLogoutVerifier(client: client).verify(token)
        let now = client.clock.now.timeIntervalSince1970
        let expiresAt = logout.claims["exp"].flatMap(NumericDate.init(json:))?.secondsSince1970 ?? now
        return ProviderEventBatch(
            events: [.logout(providerID: id, subject: logout.subject, sessionID: logout.sessionID)],
            deliveryID: "logout \(logout.issuer) \(logout.tokenID)", rememberFor: .seconds(max(0, expiresAt - now) + 300))
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
