public import FederateTokens
/// Something a provider tells the relying party about one of its users, out of band: a
/// back-channel logout, a security event, a notification. Provider modules turn what their
/// provider POSTs into these (``ProviderEventSource``); ``AccountService/apply(_:)`` acts on them.
public enum ProviderEvent: Sendable, Hashable {
    /// Back-channel logout (OpenID Connect Back-Channel Logout 1.0): with `sessionID`, end the
    /// sessions signed in through that provider session; with only `subject`, every session of
    /// that provider identity.
    case logout(providerID: String, subject: String?, sessionID: String?)
    /// The provider revoked the identity's sessions or tokens (Google RISC `sessions-revoked`,
    /// `tokens-revoked`): end every session of that identity.
    case sessionsRevoked(providerID: String, subject: String)
    /// The provider disabled the account (Google RISC `account-disabled`): disable the user.
    case accountDisabled(providerID: String, subject: String)
    /// The identity is gone at the provider (Apple `consent-revoked`, `account-delete`; Google
    /// RISC `account-purged`): unlink it and end its sessions; a user left with no other
    /// provider is disabled instead, so the account is not lost.
    case identityRemoved(providerID: String, subject: String)
    /// The provider reports a new state of the identity's email (Apple `email-disabled`: mail
    /// to the relay address no longer arrives, so it is no longer a verified way to reach the
    /// user; `email-enabled`: it is again). `email`, when given, replaces the address. The
    /// user's own email is left as it is.
    case identityEmailChanged(providerID: String, subject: String, email: String?, verified: Bool)
    /// Nothing to change in the accounts (RISC `verification`, `account-enabled`,
    /// `account-credential-change-required`): acknowledged.
    case acknowledged(String)
}

/// Which of a provider's event routes a delivery came to.
public enum ProviderEventRoute: String, Sendable, Hashable, CaseIterable {
    /// `POST {auth}/{name}/backchannel-logout`, form field `logout_token`.
    case backChannelLogout = "backchannel-logout"
    /// `POST {auth}/{name}/notifications`: Apple's server-to-server notifications.
    case notifications
    /// `POST {auth}/{name}/risc`: Google's Cross-Account Protection security events.
    case risc
}

/// What a provider's event delivery held, once verified.
public struct ProviderEventBatch: Sendable, Hashable {
    /// The events, in order.
    public let events: [ProviderEvent]
    /// The delivery's unique ID (the token's issuer and `jti`), to refuse replays across
    /// every instance (`SessionStore.consumeEventID(_:expiresAt:now:)`); `nil` when it has none.
    public let deliveryID: String?
    /// How long the ID must be remembered (past the token's own expiry).
    package let rememberFor: Duration

    /// Creates a batch.
    public init(events: [ProviderEvent], deliveryID: String?, rememberFor: Duration) {
        self.events = events
        self.deliveryID = deliveryID
        self.rememberFor = rememberFor
    }
}

/// The events capability of a ``SignInProvider`` (`ProviderCapabilities.events`): the
/// out-of-band deliveries the server routes can receive from it.
public protocol ProviderEventSource: Sendable {
    /// The routes this provider receives deliveries on.
    var eventRoutes: Set<ProviderEventRoute> { get }

    /// Verifies a delivery (the POSTed body) to `route` and returns its events. Throws
    /// `FederateError` for anything not from the provider, or not for this client.
    func receiveEvents(on route: ProviderEventRoute, body: [UInt8]) async throws(FederateError) -> ProviderEventBatch
}

/// What sign-out asks of a provider (OpenID Connect RP-Initiated Logout 1.0 §2): the hint
/// of who is signing out, where to send the browser back, and the `state` the server checks
/// on its return.
///
/// Holds the ID token: its `description` is redacted.
public struct ProviderLogoutRequest: Sendable, CustomStringConvertible {
    /// `id_token_hint`: the ID token the session was signed in with (a secret), when the server
    /// kept it; `nil` sends `client_id` alone, and a provider that insists on a hint may ask the
    /// user to confirm, or keep its session.
    public let idTokenHint: String?
    /// `post_logout_redirect_uri`, which must be registered with the provider.
    public let postLogoutRedirectURI: String
    /// `state`, echoed back to ``postLogoutRedirectURI`` and checked there.
    public let state: String

    /// Creates a request.
    public init(idTokenHint: String?, postLogoutRedirectURI: String, state: String) {
        self.idTokenHint = idTokenHint
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = state
    }

    /// Redacted.
    public var description: String { "ProviderLogoutRequest(hint: \(idTokenHint == nil ? "no" : "yes"), to: \(postLogoutRedirectURI))" }
}

/// The logout capability of a ``SignInProvider`` (`ProviderCapabilities.logout`): its own
/// session can be ended when the user signs out here (OpenID Connect RP-Initiated Logout 1.0);
/// the server's sign-out sends the browser to the URL it builds.
public protocol ProviderLogoutSource: Sendable {
    /// The provider's logout URL for this client: its `end_session_endpoint` with
    /// `id_token_hint` (when `request` has one), `post_logout_redirect_uri`, `client_id` and
    /// `state`; `nil` when the provider advertises no `end_session_endpoint` (sign-out then
    /// stays local).
    func endSessionURL(_ request: ProviderLogoutRequest) async throws(FederateError) -> String?
}
