public import FederateAccounts
public import FederateTokens
import Foundation

extension GoogleProvider: ProviderEventSource {
    /// Google's Cross-Account Protection (RISC) security events.
    public var eventRoutes: Set<ProviderEventRoute> { [.risc] }

    /// Verifies a security event token (the security-event rules, RS256 with a `kid`, `iss`
    /// the RISC issuer, `aud` this client) and returns what it means for the account:
    /// `sessions-revoked` and the token revocations end the identity's sessions,
    /// `account-disabled` disables the user, `account-purged` removes the identity; the rest
    /// (`verification`, `account-enabled`, …) is acknowledged.
    public func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch {
        guard route == .risc else { throw FederateError(.invalidRequest, "Google sends RISC security events only") }
        let client = try await client()
        let receiver = RISCReceiver(clientIDs: [clientID], issuer: endpoints.riscIssuer, keys: client.keys, clock: client.clock)
        let delivery = try await receiver.delivery(body)
        let events = delivery.events.map { event -> ProviderEvent in
            switch event {
            case .sessionsRevoked(let subject), .tokensRevoked(let subject), .tokenRevoked(let subject):
                return subject.subject.map { .sessionsRevoked(providerID: Self.providerID, subject: $0) } ?? .acknowledged("no subject")
            case .accountDisabled(let subject, _):
                return subject.subject.map { .accountDisabled(providerID: Self.providerID, subject: $0) } ?? .acknowledged("no subject")
            case .other(let type, let payload) where type.hasSuffix("/account-purged"):
                return payload["subject"]?["sub"]?.stringValue.map { .identityRemoved(providerID: Self.providerID, subject: $0) }
                    ?? .acknowledged("no subject")
            case .accountEnabled, .accountCredentialChangeRequired, .verification, .other:
                return .acknowledged("risc")
            }
        }
        return ProviderEventBatch(
            events: events, deliveryID: "risc \(endpoints.riscIssuer) \(delivery.tokenID)", rememberFor: .seconds(7 * 86_400))
    }
}
