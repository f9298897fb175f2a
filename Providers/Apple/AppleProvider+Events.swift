public import FederateAccounts
public import FederateTokens
import Foundation

extension AppleProvider: ProviderEventSource {
    /// Apple's server-to-server notifications.
    public var eventRoutes: Set<ProviderEventRoute> { [.notifications] }

    /// Verifies a notification (`{"payload": JWT}` by Apple's keys, for this Services ID or
    /// one of the bundle IDs) and returns what it means for the account: `consent-revoked` and
    /// `account-delete` remove the Apple identity; `email-disabled` and `email-enabled` set the
    /// identity's email as no longer (or again) verified.
    public func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch {
        guard route == .notifications else { throw FederateError(.invalidRequest, "Apple sends server-to-server notifications only") }
        let client = try await client()
        let verifier = try AppleNotificationVerifier(
            clientIDs: IdentifierSet(clientIDs), endpoints: endpoints, keys: client.keys, clock: client.clock)
        let notification = try await verifier.verify(body: body)
        let event: ProviderEvent
        switch notification.type {
        case .consentRevoked, .accountDelete: event = .identityRemoved(providerID: Self.providerID, subject: notification.subject)
        case .emailDisabled:
            event = .identityEmailChanged(
                providerID: Self.providerID, subject: notification.subject, email: notification.email, verified: false)
        case .emailEnabled:
            event = .identityEmailChanged(
                providerID: Self.providerID, subject: notification.subject, email: notification.email, verified: true)
        case .other(let name): event = .acknowledged(name)
        }
        // Deliveries can repeat: the JWT's jti, else the event itself, identifies one.
        let id =
            notification.notificationID
            ?? "\(notification.subject) \(notification.type) \(SafeNumber.text(notification.eventTime.timeIntervalSince1970))"
        return ProviderEventBatch(events: [event], deliveryID: "apple \(id)", rememberFor: .seconds(7 * 86_400))
    }
}
