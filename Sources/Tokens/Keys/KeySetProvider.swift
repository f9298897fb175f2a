/// Where a verifier gets its keys: a fixed ``JSONWebKeySet``, or a cache of a remote
/// key endpoint (`RemoteKeySet`).
public protocol KeySetProvider: Sendable {
    /// The keys to verify with now (fetching them if none are cached or they expired).
    func keySet() async throws(FederateError) -> JSONWebKeySet

    /// Called when a token names a key that `stale` lacks. Returns a newer set (refetched,
    /// or already refetched by a concurrent caller), or `nil` when no refetch is allowed now.
    func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet?
}

extension JSONWebKeySet: KeySetProvider {
    /// A fixed set is its own current key set.
    public func keySet() async throws(FederateError) -> JSONWebKeySet { self }

    /// A fixed set never changes.
    public func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? { nil }
}
