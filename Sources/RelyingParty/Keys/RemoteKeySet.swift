public import FederateTokens
public import Logging

/// A key set fetched from a URL and cached: the usual `KeySetProvider` for a provider's
/// `jwks_uri` (or another ``KeySetFormat`` a provider module adds).
///
/// - Cached for `Cache-Control: max-age`, clamped by the ``CachePolicy``.
/// - A token with an unknown `kid` triggers one refetch, shared by all concurrent callers,
///   and at most one such forced refetch per `CachePolicy/forcedRefreshInterval`.
/// - While the endpoint fails, the last good set keeps serving for
///   `CachePolicy/maximumStaleness` after it expired; then `FederateError/Code/keyFetchFailed`.
/// - The URL must be HTTPS (or loopback HTTP); redirects are not followed; the fetch connects
///   only where `destination` allows (`private_address_refused` otherwise).
/// - Counts fetches, refused refetches and stale serves (`federate_key_set_*`, labelled with
///   the URL) through its `Observability`.
public final class RemoteKeySet: KeySetProvider {
    /// The key endpoint.
    package let url: String
    /// The document format.
    package let format: KeySetFormat
    /// Where the fetch may connect: the provider's (`ProviderMetadata/destination`) for its
    /// `jwks_uri`; by default the URL is its own issuer.
    package let destination: DestinationPolicy
    private let cache: RefreshingCache<JSONWebKeySet>

    /// Creates a remote key set. Nothing is fetched until the first verification.
    public init(
        url: String,
        format: KeySetFormat = .jwks,
        destination: DestinationPolicy? = nil,
        httpClient: any HTTPClient,
        cachePolicy: CachePolicy = CachePolicy(), clock: FederateClock = .system,
        logger: Logger = Logger(label: "federate.keys"), observability: Observability = Observability()
    ) throws(FederateError) {
        let destination = destination ?? DestinationPolicy(issuer: url)
        try EndpointSecurity.validate(url, field: "key set URL", destination: destination)
        self.url = url
        self.format = format
        self.destination = destination
        let metrics = CacheMetrics.keySet(url: url, observability: observability)
        self.cache = RefreshingCache(policy: cachePolicy, clock: clock, metrics: metrics) { () async throws(FederateError) in
            let response: HTTPResponse
            do throws(FederateError) {
                response = try await httpClient.exchange(
                    HTTPRequest(url: url, headers: [("Accept", "application/json")], destination: destination))
            } catch  where error.code == .privateAddressRefused {
                logger.warning("key set fetch refused", metadata: ["url": "\(url)", "error": "\(error.code)"])
                throw error
            } catch {
                logger.warning("key set fetch failed", metadata: ["url": "\(url)", "error": "\(error.code)"])
                throw FederateError(.keyFetchFailed, "fetching \(url) failed: \(error.message)", cause: error)
            }
            guard response.status == 200 else {
                logger.warning("key set fetch failed", metadata: ["url": "\(url)", "status": "\(response.status)"])
                throw FederateError(.keyFetchFailed, "\(url) answered HTTP \(response.status)")
            }
            let keySet: JSONWebKeySet
            do throws(FederateError) {
                keySet = try format.parse(response.body)
            } catch {
                throw FederateError(.keyFetchFailed, "\(url) served an unusable key set: \(error.message)", cause: error)
            }
            for skipped in keySet.skipped {
                logger.debug("key skipped", metadata: ["kid": "\(skipped.keyID ?? "-")", "reason": "\(skipped.reason)"])
            }
            let lifetime = cachePolicy.lifetime(cacheControl: response.header("Cache-Control"), age: response.header("Age"))
            logger.debug(
                "key set fetched",
                metadata: [
                    "url": "\(url)", "kids": "\(keySet.keyIDs.joined(separator: ","))", "cache_seconds": "\(lifetime.components.seconds)",
                ])
            return (keySet, lifetime)
        }
    }

    /// How many fetches this key set has started (for tests and metrics).
    var fetchCount: Int { cache.fetchCount }

    /// Whether keys are in the cache (fresh, or stale but still served): fetches nothing.
    package var isWarm: Bool { cache.warmValue != nil }

    /// The cached keys, fetched when missing or expired. While they are fresh they are
    /// returned at once, on the caller's executor, without suspending.
    public nonisolated(nonsending) func keySet() async throws(FederateError) -> JSONWebKeySet {
        try await cache.value()
    }

    /// A newer set after an unknown `kid`, or `nil` when rate-limited.
    public nonisolated(nonsending) func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? {
        try await cache.refreshed { $0.identity != stale.identity }
    }
}
