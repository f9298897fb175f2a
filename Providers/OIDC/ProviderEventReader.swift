package import FederateAccounts
package import FederateRelyingParty
package import FederateTokens

/// What a provider POSTs out of band on its one event route, and how a delivery is read with
/// the provider's client (its keys and clock): back-channel logout (``BackChannelLogoutReader``),
/// Google's RISC events, Apple's server-to-server notifications. ``OIDCProvider`` receives
/// them as a `ProviderEventSource`: the route checked once, here, for every provider module.
package protocol ProviderEventReader: Sendable {
    /// The route the deliveries arrive on.
    var route: ProviderEventRoute { get }

    /// Verifies one delivery with `client`'s keys and clock and says what it means for the
    /// identities of `providerID`.
    func read(_ body: [UInt8], providerID: String, client: OpenIDClient) async throws(FederateError) -> ProviderEventBatch
}
