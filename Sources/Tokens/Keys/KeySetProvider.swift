/// Where a verifier gets its keys: a fixed ``JSONWebKeySet``, or a cache of a remote
/// key endpoint (`RemoteKeySet`).
///
/// Both requirements run on their caller's executor (`nonisolated(nonsending)`): a provider
/// that has the keys at hand returns them without suspending, and a verification with warm
/// keys then never leaves the executor it started on. Only a fetch suspends.
public protocol KeySetProvider: Sendable {
    /// The keys to verify with now (fetching them if none are cached or they expired).
    nonisolated(nonsending) func keySet() async throws(FederateError) -> JSONWebKeySet

    /// Called when a token names a key that `stale` lacks. Returns a newer set (refetched,
    /// or already refetched by a concurrent caller), or `nil` when no refetch is allowed now.
    nonisolated(nonsending) func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet?
}

extension JSONWebKeySet: KeySetProvider {
    /// A fixed set is its own current key set.
    public nonisolated(nonsending) func keySet() async throws(FederateError) -> JSONWebKeySet { self }

    /// A fixed set never changes.
    public nonisolated(nonsending) func refreshedKeySet(after stale: JSONWebKeySet) async throws(FederateError) -> JSONWebKeySet? { nil }
}
