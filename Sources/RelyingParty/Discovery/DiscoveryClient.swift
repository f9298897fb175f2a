public import FederateTokens
public import Logging
import Synchronization

/// Fetches and caches validated ``ProviderMetadata`` per issuer.
///
/// Each issuer's document is fetched once, cached like key sets (``CachePolicy``), with one
/// fetch in flight per issuer; a document whose `issuer` differs from the requested one is
/// refused with `FederateError/Code/discoveryIssuerMismatch`.
public final class DiscoveryClient: Sendable {
    private let httpClient: any HTTPClient
    private let clock: FederateClock
    private let cachePolicy: CachePolicy
    private let logger: Logger
    private let caches = Mutex<[String: RefreshingCache<ProviderMetadata>]>([:])

    /// Creates a client.
    public init(
        httpClient: any HTTPClient,
        cachePolicy: CachePolicy = CachePolicy(), clock: FederateClock = .system,
        logger: Logger = Logger(label: "federate.discovery")
    ) {
        self.httpClient = httpClient
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.logger = logger
    }

    /// The validated metadata of `issuer` (cached).
    public func metadata(for issuer: String) async throws(FederateError) -> ProviderMetadata {
        try EndpointSecurity.validate(issuer, field: "issuer")
        let cache = caches.withLock { caches in
            if let existing = caches[issuer] { return existing }
            let created = makeCache(issuer: issuer)
            caches[issuer] = created
            return created
        }
        return try await cache.value()
    }

    /// `issuer`'s document when it is in the cache (fresh, or stale but still served), else
    /// `nil`: fetches nothing. A readiness check asks this.
    public func cachedMetadata(for issuer: String) -> ProviderMetadata? {
        caches.withLock { $0[issuer] }?.warmValue
    }

    private func makeCache(issuer: String) -> RefreshingCache<ProviderMetadata> {
        let url = ProviderMetadata.discoveryURL(forIssuer: issuer)
        return RefreshingCache(policy: cachePolicy, clock: clock) {
            [httpClient, cachePolicy, logger] () async throws(FederateError) in
            let response: HTTPResponse
            do throws(FederateError) {
                response = try await httpClient.exchange(HTTPRequest(url: url, headers: [("Accept", "application/json")]))
            } catch {
                throw FederateError(.discoveryFailed, "fetching \(url) failed: \(error.message)", cause: error)
            }
            guard response.status == 200 else {
                logger.warning("discovery failed", metadata: ["url": "\(url)", "status": "\(response.status)"])
                throw FederateError(.discoveryFailed, "\(url) answered HTTP \(response.status)")
            }
            let metadata = try ProviderMetadata(document: response.body, expectedIssuer: issuer)
            let lifetime = cachePolicy.lifetime(cacheControl: response.header("Cache-Control"), age: response.header("Age"))
            logger.debug("discovery document fetched", metadata: ["url": "\(url)", "cache_seconds": "\(lifetime.components.seconds)"])
            return (metadata, lifetime)
        }
    }
}
