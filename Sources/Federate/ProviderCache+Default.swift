import FederateAsyncHTTPClient
public import FederateRelyingParty

extension ProviderCache {
    /// An empty cache that fetches through the server's default transport,
    /// `AsyncHTTPClientTransport.shared` (one per process, shut down with it). Give
    /// `ProviderCache.init(httpClient:cachePolicy:clock:logger:observability:)` another
    /// transport, a cache policy or a clock when you need them.
    public convenience init() {
        self.init(httpClient: AsyncHTTPClientTransport.shared)
    }
}
