/// Where a verifier gets its keys: a fixed ``JSONWebKeySet``, or a cache of a remote
/// key endpoint (`RemoteKeySet`).
public protocol KeySetProvider: Sendable {
    /// The keys to verify with now (fetching them if none are cached or they expired).
    func keySet() async throws(FederateError) -> JSONWebKeySet

    /// Called when a token names a key that `stale` lacks. Returns a newer set (refetched,
    /// or already refetched by a concurrent caller), or `nil` when no refetch is allowed now.
    func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet?

    /// The keys when they can be had now without waiting: cached and fresh. `nil` when
    /// ``keySet()`` would fetch, or serve a stale set (the default). A verifier given a set
    /// here verifies without suspending.
    var cachedKeySet: JSONWebKeySet? { get }
}

extension KeySetProvider {
    /// None: verifiers ask ``keySet()``.
    public var cachedKeySet: JSONWebKeySet? { nil }
}

extension JSONWebKeySet: KeySetProvider {
    /// A fixed set is its own current key set.
    public func keySet() async throws(FederateError) -> JSONWebKeySet { self }

    /// A fixed set never changes.
    public func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? { nil }

    /// A fixed set is always at hand.
    public var cachedKeySet: JSONWebKeySet? { self }
}
