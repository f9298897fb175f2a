import FederateAccounts
import FederateRelyingParty
import FederateTokens
import Foundation

/// Back-channel logout (OpenID Connect Back-Channel Logout 1.0): a form with a `logout_token`,
/// verified by the logout-token rules of the one JWT pipeline with the provider's keys and client.
struct BackChannelLogoutReader: ProviderEventReader {
    /// `backchannel-logout`.
    var route: ProviderEventRoute { .backChannelLogout }

    /// The logout event of the token, remembered until the token expires (and five minutes more).
    func read(_ body: [UInt8], providerID: String, client: OpenIDClient) async throws(FederateError) -> ProviderEventBatch {
        guard let text = String(validating: body, as: UTF8.self), let token = try FormURLEncoding.decode(text)["logout_token"] else {
            throw FederateError(.invalidRequest, "the body has no logout_token")
        }
        let logout = try await BackChannelLogoutVerifier(client: client).verify(token)
        let now = client.clock.now.timeIntervalSince1970
        let expiresAt = logout.claims["exp"].flatMap(NumericDate.init(json:))?.secondsSince1970 ?? now
        return ProviderEventBatch(
            events: [.logout(providerID: providerID, subject: logout.subject, sessionID: logout.sessionID)],
            deliveryID: "logout \(logout.issuer) \(logout.tokenID)", rememberFor: .seconds(max(0, expiresAt - now) + 300))
    }
}
