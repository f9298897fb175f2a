import FederateAccounts
import FederateOIDC
import FederateRelyingParty
import FederateTokens
import Foundation

/// Google's Cross-Account Protection (RISC) security events, as ``GoogleProvider`` receives them.
struct RISCEventReader: ProviderEventReader {
    /// The OAuth client ID (the accepted `aud`).
    let clientID: String
    /// The RISC configuration's issuer.
    let issuer: String

    /// `risc`.
    var route: ProviderEventRoute { .risc }

    /// Verifies a security event token (the security-event rules, RS256 with a `kid`, `iss`
    /// the RISC issuer, `aud` this client) and returns what it means for the account:
    /// `sessions-revoked` and the token revocations end the identity's sessions,
    /// `account-disabled` disables the user, `account-purged` removes the identity; the rest
    /// (`verification`, `account-enabled`, …) is acknowledged.
    func read(_ body: [UInt8], providerID: String, client: OpenIDClient) async throws(FederateError) -> ProviderEventBatch {
        let receiver = RISCReceiver(clientIDs: [clientID], issuer: issuer, keys: client.keys, clock: client.clock)
        let delivery = try await receiver.delivery(body)
        let events = delivery.events.map { event -> ProviderEvent in
            switch event {
            case .sessionsRevoked(let subject), .tokensRevoked(let subject), .tokenRevoked(let subject):
                return subject.subject.map { .sessionsRevoked(providerID: providerID, subject: $0) } ?? .acknowledged("no subject")
            case .accountDisabled(let subject, _):
                return subject.subject.map { .accountDisabled(providerID: providerID, subject: $0) } ?? .acknowledged("no subject")
            case .other(let type, let payload) where type.hasSuffix("/account-purged"):
                return payload["subject"]?["sub"]?.stringValue.map { .identityRemoved(providerID: providerID, subject: $0) }
                    ?? .acknowledged("no subject")
            case .accountEnabled, .accountCredentialChangeRequired, .verification, .other:
                return .acknowledged("risc")
            }
        }
        return ProviderEventBatch(events: events, deliveryID: "risc \(issuer) \(delivery.tokenID)", rememberFor: .seconds(7 * 86_400))
    }
}
