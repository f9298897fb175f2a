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
    /// By the issuer's exact bytes (``ExactString``): a look-alike issuer never finds another's document.
    private let caches = Mutex<[ExactString: RefreshingCache<ProviderMetadata>]>([:])

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
        try await metadata(for: issuer, tenantIssuer: nil)
    }

    /// The validated metadata at `authority` (cached). Without `tenantIssuer`, exactly
    /// ``metadata(for:)``. With it, the document's `issuer` may be the rule's tenant template
    /// (Microsoft Entra's `/common`, `/organizations`) or that template's issuer for a tenant
    /// the rule accepts (`/consumers`, one tenant's authority), and `authority` must itself be
    /// the template with a path segment in the placeholder's place; anything else is
    /// `FederateError/Code/discoveryIssuerMismatch`. Templates are accepted only this way:
    /// the caller asked for them.
    public func metadata(for authority: String, tenantIssuer: TenantIssuerRule?) async throws(FederateError) -> ProviderMetadata {
        try EndpointSecurity.validate(authority, field: "issuer")
        let expected = try DiscoveredIssuer(authority: authority, tenantIssuer: tenantIssuer)
        let cache = caches.withLock { caches in
            if let existing = caches[expected.cacheKey] { return existing }
            let created = makeCache(issuer: authority, expected: expected)
            caches[expected.cacheKey] = created
            return created
        }
        return try await cache.value()
    }

    /// `issuer`'s document when it is in the cache (fresh, or stale but still served), else
    /// `nil`: fetches nothing. A readiness check asks this.
    public func cachedMetadata(for issuer: String) -> ProviderMetadata? {
        caches.withLock { $0[ExactString(issuer)] }?.warmValue
    }

    /// The document at `authority` fetched with `tenantIssuer` when it is in the cache, else `nil`.
    public func cachedMetadata(for authority: String, tenantIssuer: TenantIssuerRule?) -> ProviderMetadata? {
        guard let expected = try? DiscoveredIssuer(authority: authority, tenantIssuer: tenantIssuer) else { return nil }
        return caches.withLock { $0[expected.cacheKey] }?.warmValue
    }

    private func makeCache(issuer: String, expected: DiscoveredIssuer) -> RefreshingCache<ProviderMetadata> {
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
            let metadata = try ProviderMetadata(document: response.body, expecting: expected)
            let lifetime = cachePolicy.lifetime(cacheControl: response.header("Cache-Control"), age: response.header("Age"))
            logger.debug("discovery document fetched", metadata: ["url": "\(url)", "cache_seconds": "\(lifetime.components.seconds)"])
            return (metadata, lifetime)
        }
    }
}
