/// How often one client may do something anonymous (create a guest account): `burst` times at
/// once, then once per `interval` (a token bucket). A client is the address the connection
/// comes from (an IPv6 client by its /64 network, which one host can fill with addresses);
/// behind reverse proxies named in ``FederateServerConfiguration/trustedProxies``, the address
/// their `X-Forwarded-For` names.
public struct RateLimit: Sendable, Hashable {
    /// How many at once.
    public var burst: Int
    /// How long until one more is allowed.
    public var interval: Duration

    /// A limit of `burst` at once, then one per `interval`. `burst` below 1 allows none.
    public init(burst: Int, interval: Duration) {
        self.burst = burst
        self.interval = interval
    }

    /// Guest accounts: 5 at once, then one a minute per client.
    public static let guests = RateLimit(burst: 5, interval: .seconds(60))

    /// The anonymous passkey routes' default: 30 at once, then one every two seconds (a
    /// sign-in is two requests).
    public static let passkeys = RateLimit(burst: 30, interval: .seconds(2))
}
