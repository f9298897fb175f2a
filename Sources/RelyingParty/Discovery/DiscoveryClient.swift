public import FederateTokens
public import Logging
import Synchronization

/// Fetches and caches validated ``ProviderMetadata`` per issuer.
///
/// Each issuer's document is fetched once, cached like key sets (``CachePolicy``), with one
/// fetch in flight per issuer; a document whose `issuer` differs from the requested one is
/// refused with `FederateError/Code/discoveryIssuerMismatch`. The fetch, and every request
/// for the provider, carries the issuer's `DestinationPolicy`: unless the issuer is on
/// loopback, no loopback, link-local, private or unspecified address outside the provider's
/// `PrivateNetworkAllowList`, named in the document or resolved to.
public final class DiscoveryClient: Sendable {
    private let httpClient: any HTTPClient
    private let clock: FederateClock
    private let cachePolicy: CachePolicy
    private let logger: Logger
    /// By the issuer's exact bytes (`ExactString`): a look-alike issuer never finds another's document.
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

    /// The validated metadata at `authority` (cached): the document's `issuer` must be
    /// `authority` exactly. With `tenantIssuer`, it may instead be the rule's tenant template
    /// (Microsoft Entra's `/common`, `/organizations`) or that template's issuer for a tenant
    /// the rule accepts (`/consumers`, one tenant's authority), and `authority` must itself be
    /// the template with a path segment in the placeholder's place; anything else is
    /// `FederateError/Code/discoveryIssuerMismatch`. Templates are accepted only this way:
    /// the caller asked for them. `privateNetworkAllowList` names the private destinations this
    /// provider may use although its issuer is not on loopback (``DestinationPolicy``).
    public func metadata(
        for authority: String, tenantIssuer: TenantIssuerRule? = nil, privateNetworkAllowList: PrivateNetworkAllowList = .none
    ) async throws(FederateError) -> ProviderMetadata {
        let destination = DestinationPolicy(issuer: authority, allowing: privateNetworkAllowList)
        try EndpointSecurity.validate(authority, field: "issuer", destination: destination)
        let expected = try DiscoveredIssuer(authority: authority, tenantIssuer: tenantIssuer)
        let key = Self.cacheKey(expected, privateNetworkAllowList)
        let cache = caches.withLock { caches in
            if let existing = caches[key] { return existing }
            let created = makeCache(issuer: authority, expected: expected, allowList: privateNetworkAllowList, destination: destination)
            caches[key] = created
            return created
        }
        return try await cache.value()
    }

    /// One cache entry per issuer expectation and allow-list: a document accepted under one
    /// allow-list is never served to a caller with another.
    private static func cacheKey(_ expected: DiscoveredIssuer, _ allowList: PrivateNetworkAllowList) -> ExactString {
        allowList.isEmpty ? expected.cacheKey : ExactString(expected.cacheKey.value + " allowing " + allowList.description)
    }

    /// `issuer`'s document when it is in the cache (fresh, or stale but still served), else
    /// `nil`: fetches nothing. A readiness check asks this.
    package func cachedMetadata(for issuer: String) -> ProviderMetadata? {
        caches.withLock { $0[ExactString(issuer)] }?.warmValue
    }

    /// The document at `authority` fetched with `tenantIssuer` when it is in the cache, else `nil`.
    package func cachedMetadata(
        for authority: String, tenantIssuer: TenantIssuerRule?, privateNetworkAllowList: PrivateNetworkAllowList = .none
    ) -> ProviderMetadata? {
        guard let expected = try? DiscoveredIssuer(authority: authority, tenantIssuer: tenantIssuer) else { return nil }
        return caches.withLock { $0[Self.cacheKey(expected, privateNetworkAllowList)] }?.warmValue
    }

    private func makeCache(
        issuer: String, expected: DiscoveredIssuer, allowList: PrivateNetworkAllowList, destination: DestinationPolicy
    ) -> RefreshingCache<ProviderMetadata> {
        let url = ProviderMetadata.discoveryURL(forIssuer: issuer)
        return RefreshingCache(policy: cachePolicy, clock: clock) {
            [httpClient, cachePolicy, logger] () async throws(FederateError) in
            let response: HTTPResponse
            do throws(FederateError) {
                response = try await httpClient.exchange(
                    HTTPRequest(url: url, headers: [("Accept", "application/json")], destination: destination))
            } catch  where error.code == .privateAddressRefused {
                throw error
            } catch {
                throw FederateError(.discoveryFailed, "fetching \(url) failed: \(error.message)", cause: error)
            }
            guard response.status == 200 else {
                logger.warning("discovery failed", metadata: ["url": "\(url)", "status": "\(response.status)"])
                throw FederateError(.discoveryFailed, "\(url) answered HTTP \(response.status)")
            }
            let metadata = try ProviderMetadata(document: response.body, expecting: expected, allowing: allowList)
            let lifetime = cachePolicy.lifetime(cacheControl: response.header("Cache-Control"), age: response.header("Age"))
            logger.debug("discovery document fetched", metadata: ["url": "\(url)", "cache_seconds": "\(lifetime.components.seconds)"])
            return (metadata, lifetime)
        }
    }
}
