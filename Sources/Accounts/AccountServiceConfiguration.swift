public import FederateTokens

/// How ``AccountService`` issues and judges sessions.
public struct AccountServiceConfiguration: Sendable {
    /// The `iss` of session tokens (and the only one accepted).
    package var issuer: String
    /// How long a session token is valid.
    package var sessionLifetime: Duration
    /// The default window of ``AccountService/requireRecentLogin(_:within:)``: how old
    /// `auth_time` may be for a sensitive operation (Firebase does not publish its own).
    package var recentLoginWindow: Duration
    /// After this age the signing key is replaced by a new one (old keys keep verifying
    /// until every token they signed has expired).
    var keyRotationInterval: Duration
    /// How long keys read from the store are cached before they are read again (another
    /// server instance may have rotated). An unknown `kid` always triggers a reread.
    var keyCacheDuration: Duration
    /// Tolerated clock skew for `iat` of session tokens issued by other server instances.
    package var clockTolerance: Duration
    /// How stale the revocation state of a session check may be. ``AccountService`` keeps the
    /// sessions it found active, with the store's `SessionStore.revocationEpoch()`, and
    /// rereads the epoch at most this long after it last read it; a new epoch (any
    /// revocation, on any instance) empties the cache. So a revocation made through any
    /// instance is honoured by every instance sharing the store within this interval (at
    /// once by the instance that made it). `.zero` turns the cache off: every check asks the
    /// store. Stores without an epoch are always asked.
    var revocationCheckInterval: Duration
    /// The most sessions the revocation cache keeps; when full it starts again empty.
    var revocationCacheCapacity: Int
    /// How long a guest account (``AccountService/signInAsGuest()``) lives unless it links a
    /// provider: its sessions end then, and ``AccountService/pruneExpiredGuests(limit:)``
    /// deletes it (7 days by default).
    package var guestLifetime: Duration
    /// The most guest accounts alive at once (created within ``guestLifetime`` and not yet
    /// upgraded): past it ``AccountService/signInAsGuest()`` throws `guest_capacity_reached`
    /// (100,000 by default). Instances sharing a store count together, so concurrent
    /// creations can pass it by a few.
    package var maximumLiveGuests: Int
    /// How long a merge ticket (``AccountErrorContext/mergeTicket``) stays valid: the age the
    /// credential's proof may reach before ``AccountService/merge(ticket:into:)`` (10 minutes
    /// by default).
    package var mergeTicketLifetime: Duration
    /// The WebAuthn relying party passkeys are registered with and verified by (RP ID, origins,
    /// user verification); `nil`, the default, turns passkeys off (Docs/Passkeys.md).
    package var passkeys: WebAuthnConfiguration?

    /// Creates a configuration.
    public init(
        issuer: String = "federate", sessionLifetime: Duration = .seconds(24 * 3600), recentLoginWindow: Duration = .seconds(300),
        keyRotationInterval: Duration = .seconds(7 * 24 * 3600), keyCacheDuration: Duration = .seconds(60),
        clockTolerance: Duration = .seconds(5), revocationCheckInterval: Duration = .seconds(1), revocationCacheCapacity: Int = 100_000,
        guestLifetime: Duration = .seconds(7 * 24 * 3600), maximumLiveGuests: Int = 100_000, mergeTicketLifetime: Duration = .seconds(600),
        passkeys: WebAuthnConfiguration? = nil
    ) {
        self.issuer = issuer
        self.sessionLifetime = sessionLifetime
        self.recentLoginWindow = recentLoginWindow
        self.keyRotationInterval = keyRotationInterval
        self.keyCacheDuration = keyCacheDuration
        self.clockTolerance = clockTolerance
        self.revocationCheckInterval = revocationCheckInterval
        self.revocationCacheCapacity = revocationCacheCapacity
        self.guestLifetime = guestLifetime
        self.maximumLiveGuests = maximumLiveGuests
        self.mergeTicketLifetime = mergeTicketLifetime
        self.passkeys = passkeys
    }

    /// Sessions for a day, recent login within 5 minutes, keys rotated weekly.
    package static let standard = AccountServiceConfiguration()
}
