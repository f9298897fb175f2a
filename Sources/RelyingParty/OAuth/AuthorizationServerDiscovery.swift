package import FederateTokens
package import Logging
import Synchronization

/// Fetches and caches validated ``AuthorizationServerMetadata`` per issuer, one fetch in
/// flight per issuer, cached like discovery documents (``CachePolicy``).
///
/// Where it looks, in order, moving on only when a location answers 404: RFC 8414's
/// `/.well-known/oauth-authorization-server` inserted before the issuer's path; the same
/// name appended to the issuer (django-oauth-toolkit serves it there); the OpenID discovery
/// document (`/.well-known/openid-configuration`), whose members an authorization server
/// shares. Any other status, or a document that fails validation, is an error.
package final class AuthorizationServerDiscovery: Sendable {
    private let httpClient: any HTTPClient
    private let clock: FederateClock
    private let cachePolicy: CachePolicy
    private let logger: Logger
    /// By the issuer's exact bytes: a look-alike issuer never finds another's document.
    private let caches = Mutex<[ExactString: RefreshingCache<AuthorizationServerMetadata>]>([:])

    /// Creates a discovery client.
    package init(
        httpClient: any HTTPClient, cachePolicy: CachePolicy = CachePolicy(), clock: FederateClock = .system,
        logger: Logger = Logger(label: "federate.discovery")
    ) {
        self.httpClient = httpClient
        self.cachePolicy = cachePolicy
        self.clock = clock
        self.logger = logger
    }

    /// The validated metadata of `issuer` (cached), under its private-network rule with
    /// `allowList`'s exceptions (the metadata then carries them to every request made for it).
    package func metadata(
        for issuer: String, allowing allowList: PrivateNetworkAllowList = .none
    ) async throws(FederateError) -> AuthorizationServerMetadata {
        try EndpointSecurity.validate(issuer, field: "issuer", destination: DestinationPolicy(issuer: issuer, allowing: allowList))
        let key = allowList.isEmpty ? ExactString(issuer) : ExactString(issuer + " allowing " + allowList.description)
        let cache = caches.withLock { caches in
            if let existing = caches[key] { return existing }
            let created = makeCache(issuer: issuer, allowList: allowList)
            caches[key] = created
            return created
        }
        return try await cache.value()
    }

    /// `issuer`'s metadata when it is cached (fresh, or stale but still served); fetches nothing.
    package func cachedMetadata(for issuer: String) -> AuthorizationServerMetadata? {
        caches.withLock { $0[ExactString(issuer)] }?.warmValue
    }

    /// The locations tried for `issuer`, in order.
    static func locations(forIssuer issuer: String) -> [String] {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        var urls = [
            AuthorizationServerMetadata.metadataURL(forIssuer: issuer), trimmed + "/.well-known/oauth-authorization-server",
            ProviderMetadata.discoveryURL(forIssuer: issuer),
        ]
        var seen = Set<String>()
        urls = urls.filter { seen.insert($0).inserted }
        return urls
    }

    private func makeCache(issuer: String, allowList: PrivateNetworkAllowList) -> RefreshingCache<AuthorizationServerMetadata> {
        RefreshingCache(policy: cachePolicy, clock: clock) { [httpClient, cachePolicy, logger] () async throws(FederateError) in
            for url in Self.locations(forIssuer: issuer) {
                let response: HTTPResponse
                do throws(FederateError) {
                    response = try await httpClient.exchange(
                        HTTPRequest(
                            url: url, headers: [("Accept", "application/json")],
                            destination: DestinationPolicy(issuer: issuer, allowing: allowList)))
                } catch {
                    throw FederateError(.discoveryFailed, "fetching \(url) failed: \(error.message)", cause: error)
                }
                if response.status == 404 { continue }
                guard response.status == 200 else {
                    logger.warning("authorization server discovery failed", metadata: ["url": "\(url)", "status": "\(response.status)"])
                    throw FederateError(.discoveryFailed, "\(url) answered HTTP \(response.status)")
                }
                let metadata = try AuthorizationServerMetadata(document: response.body, expectedIssuer: issuer, allowing: allowList)
                let lifetime = cachePolicy.lifetime(cacheControl: response.header("Cache-Control"), age: response.header("Age"))
                logger.debug("authorization server metadata fetched", metadata: ["url": "\(url)"])
                return (metadata, lifetime)
            }
            throw FederateError(
                .discoveryFailed, "the issuer publishes no authorization server metadata (RFC 8414) and no OpenID discovery document")
        }
    }
}
