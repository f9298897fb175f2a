public import FederateRelyingParty

/// What a provider can do beyond signing users in, declared once, as a value: each
/// capability is the provider itself, seen through the protocol of that job, or `nil`.
///
/// A provider returns it from ``SignInProvider/capabilities``:
///
/// ```swift
/// public var capabilities: ProviderCapabilities {
///     ProviderCapabilities(stepUp: self, events: self, logout: self, bearerTokens: self, warming: self)
/// }
/// ```
///
/// The server routes, `federate serve` and the CLI read it through ``ProviderRegistry``: a
/// capability the value does not name is one the provider does not have, whatever protocols
/// its type adopts.
public struct ProviderCapabilities: Sendable {
    /// Sign-ins that ask for an authentication level (`acr_values`, `max_age`).
    package var stepUp: (any StepUpSignInProvider)?
    /// Deliveries the provider POSTs out of band: back-channel logout, notifications, security events.
    package var events: (any ProviderEventSource)?
    /// Ending the provider's own session when the user signs out here (RP-Initiated Logout).
    package var logout: (any ProviderLogoutSource)?
    /// The provider's ID tokens taken as bearer tokens by an API.
    package var bearerTokens: (any BearerTokenSource)?
    /// Fetching the discovery document and key set ahead of use, and saying whether they are cached.
    package var warming: (any WarmableProvider)?
    /// Redeeming refresh tokens, so kept provider tokens stay valid (``ProviderTokenVault``).
    package var tokenRefresh: (any TokenRefreshingProvider)?

    /// Declares the capabilities; each omitted one is absent.
    public init(
        stepUp: (any StepUpSignInProvider)? = nil, events: (any ProviderEventSource)? = nil, logout: (any ProviderLogoutSource)? = nil,
        bearerTokens: (any BearerTokenSource)? = nil, warming: (any WarmableProvider)? = nil,
        tokenRefresh: (any TokenRefreshingProvider)? = nil
    ) {
        self.stepUp = stepUp
        self.events = events
        self.logout = logout
        self.bearerTokens = bearerTokens
        self.warming = warming
        self.tokenRefresh = tokenRefresh
    }
}
