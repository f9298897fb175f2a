public import FederateTokens
public import Logging
import Synchronization

/// What a long-lived provider keeps between sign-ins: its discovery document and its key
/// sets, so a server does not fetch either per request. Shared by copies of a provider value
/// (it is a reference), safe to share across tasks. Key sets are cached by URL and format
/// only, so a changed provider configuration never reuses anything stale.
public final class ProviderCache: Sendable {
    /// Discovery, cached per issuer.
    package let discovery: DiscoveryClient
    /// OAuth 2.0 authorization server metadata (RFC 8414), cached per issuer, for providers
    /// without ID tokens.
    package let authorizationServers: AuthorizationServerDiscovery
    /// The transport every provider built on this cache talks through.
    package let httpClient: any HTTPClient
    private let cachePolicy: CachePolicy
    /// The time its caches expire by, handed on to the clients it builds (flows, ID tokens)
    /// and to the provider modules built on it: one clock for everything a provider does.
    package let clock: FederateClock
    /// Where its key sets and the clients it builds report metrics and spans.
    package let observability: Observability
    private let logger: Logger
    /// By format and URL, byte for byte (`ExactString`): a look-alike URL never finds another's keys.
    private let keySets = Mutex<[ExactString: RemoteKeySet]>([:])

    /// Creates an empty cache; its key sets and clients report to `observability` (by default,
    /// the metrics and tracing systems the application bootstrapped).
    public init(
        httpClient: any HTTPClient, cachePolicy: CachePolicy = CachePolicy(), clock: FederateClock = .system,
        logger: Logger = Logger(label: "federate.provider"), observability: Observability = Observability()
    ) {
        self.discovery = DiscoveryClient(httpClient: httpClient, cachePolicy: cachePolicy, clock: clock, logger: logger)
        self.authorizationServers = AuthorizationServerDiscovery(
            httpClient: httpClient, cachePolicy: cachePolicy, clock: clock, logger: logger)
        self.httpClient = httpClient
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.logger = logger
        self.observability = observability
    }

    /// The key set at `url` (created on first use, then shared), fetched only where
    /// `destination` allows (by default the URL is its own issuer).
    package func keySet(
        url: String, format: KeySetFormat = .jwks, destination: DestinationPolicy? = nil
    ) throws(FederateError) -> RemoteKeySet {
        let destination = destination ?? DestinationPolicy(issuer: url)
        let key = Self.keySetKey(url: url, format: format, destination: destination)
        if let existing = keySets.withLock({ $0[key] }) { return existing }
        let created = try RemoteKeySet(
            url: url, format: format, destination: destination, httpClient: httpClient, cachePolicy: cachePolicy, clock: clock,
            logger: logger,
            observability: observability)
        return keySets.withLock { sets in
            if let existing = sets[key] { return existing }
            sets[key] = created
            return created
        }
    }

    /// Key sets are shared per URL, format and destination policy.
    private static func keySetKey(url: String, format: KeySetFormat, destination: DestinationPolicy) -> ExactString {
        ExactString("\(format.name) \(destination) \(url)")
    }

    /// Fetches `issuer`'s discovery document and the key set `profile` locates from it into
    /// this cache (nothing when both are fresh), so the first sign-in does not wait on them.
    /// Throws `discovery_failed`, `key_fetch_failed` and the like when the provider cannot be reached.
    package func warm(issuer: String, profile: any OpenIDProviderProfile = StandardOpenIDProfile()) async throws(FederateError) {
        let metadata = try await discovery.metadata(
            for: issuer, tenantIssuer: profile.tenantIssuer, privateNetworkAllowList: profile.privateNetworkAllowList)
        let location = profile.keySetLocation(metadata: metadata)
        _ = try await keySet(url: location.url, format: location.format, destination: metadata.destination).keySet()
    }

    /// Whether `issuer`'s discovery document and the key set `profile` locates from it are
    /// both cached (fresh, or stale but still served). Fetches nothing.
    package func isWarm(issuer: String, profile: any OpenIDProviderProfile = StandardOpenIDProfile()) -> Bool {
        guard
            let metadata = discovery.cachedMetadata(
                for: issuer, tenantIssuer: profile.tenantIssuer, privateNetworkAllowList: profile.privateNetworkAllowList)
        else { return false }
        let location = profile.keySetLocation(metadata: metadata)
        let key = Self.keySetKey(url: location.url, format: location.format, destination: metadata.destination)
        return keySets.withLock { $0[key] }?.isWarm ?? false
    }

    /// A client for `clientID` at the provider `metadata` describes (from ``discovery``),
    /// with `profile`'s policy and its key set from this cache.
    package func client(
        metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication,
        profile: any OpenIDProviderProfile = StandardOpenIDProfile(), logger: Logger? = nil
    ) throws(FederateError) -> OpenIDClient {
        let location = profile.keySetLocation(metadata: metadata)
        return try OpenIDClient(
            metadata: metadata, clientID: clientID, authentication: authentication, profile: profile,
            keys: try keySet(url: location.url, format: location.format, destination: metadata.destination), httpClient: httpClient,
            clock: clock,
            logger: logger ?? self.logger, observability: observability)
    }

    /// A client for `clientID` at `issuer`, the way every provider makes one. Discovery and
    /// keys come from this cache, unless `discovery` is given: then from that discovery
    /// client, with a key set of the client's own fetched over `httpClient` (one-off clients).
    /// `authentication` picks the client authentication once the metadata is known.
    package func client(
        issuer: String, clientID: String, profile: any OpenIDProviderProfile = StandardOpenIDProfile(),
        discovery: DiscoveryClient? = nil, httpClient: (any HTTPClient)? = nil, logger: Logger? = nil,
        authentication: (ProviderMetadata) throws(FederateError) -> ClientAuthentication
    ) async throws(FederateError) -> OpenIDClient {
        let allowList = profile.privateNetworkAllowList
        guard let discovery else {
            let metadata = try await self.discovery.metadata(
                for: issuer, tenantIssuer: profile.tenantIssuer, privateNetworkAllowList: allowList)
            return try client(
                metadata: metadata, clientID: clientID, authentication: try authentication(metadata), profile: profile, logger: logger)
        }
        let metadata = try await discovery.metadata(for: issuer, tenantIssuer: profile.tenantIssuer, privateNetworkAllowList: allowList)
        return try OpenIDClient(
            metadata: metadata, clientID: clientID, authentication: try authentication(metadata), profile: profile,
            httpClient: httpClient ?? self.httpClient, clock: clock, logger: logger ?? self.logger, observability: observability)
    }
}
