import FederateAccounts
import FederateOIDC
import FederateRelyingParty
import FederateTokens
import Foundation

/// Apple's server-to-server notifications, as ``AppleProvider`` receives them.
struct AppleNotificationReader: ProviderEventReader {
    /// The Services ID and the bundle IDs: the accepted `aud` values.
    let clientIDs: IdentifierSet
    /// Apple's issuer and endpoints.
    let endpoints: AppleEndpoints

    /// `notifications`.
    var route: ProviderEventRoute { .notifications }

    /// Verifies a notification (`{"payload": JWT}` by Apple's keys, for this Services ID or
    /// one of the bundle IDs) and returns what it means for the account: `consent-revoked` and
    /// `account-delete` remove the Apple identity; `email-disabled` and `email-enabled` set the
    /// identity's email as no longer (or again) verified.
    func read(_ body: [UInt8], providerID: String, client: OpenIDClient) async throws(FederateError) -> ProviderEventBatch {
        let verifier = try AppleNotificationVerifier(clientIDs: clientIDs, endpoints: endpoints, keys: client.keys, clock: client.clock)
        let notification = try await verifier.verify(body: body)
        let event: ProviderEvent
        switch notification.type {
        case .consentRevoked, .accountDelete: event = .identityRemoved(providerID: providerID, subject: notification.subject)
        case .emailDisabled:
            event = .identityEmailChanged(providerID: providerID, subject: notification.subject, email: notification.email, verified: false)
        case .emailEnabled:
            event = .identityEmailChanged(providerID: providerID, subject: notification.subject, email: notification.email, verified: true)
        case .other(let name): event = .acknowledged(name)
        }
        // Deliveries can repeat: the JWT's jti, else the event itself, identifies one.
        let id =
            notification.notificationID
            ?? "\(notification.subject) \(notification.type) \(SafeNumber.text(notification.eventTime.timeIntervalSince1970))"
        return ProviderEventBatch(events: [event], deliveryID: "apple \(id)", rememberFor: .seconds(7 * 86_400))
    }
}
