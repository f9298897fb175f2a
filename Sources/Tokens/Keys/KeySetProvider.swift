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

/// A ``KeySetProvider`` that can tell, without suspending, the keys ``keySet()`` would
/// return at once: fresh cached keys (`RemoteKeySet`, the account layer's session keys) or a
/// fixed set. A verifier reads them directly, so a verification with warm keys makes no async
/// call (under SwiftNIO's executor, each async call through a protocol costs a request an
/// executor hop). `nil` whenever ``keySet()`` would fetch or serve a stale set: it decides.
package protocol KeySetAtHand: KeySetProvider {
    /// The keys at hand, or `nil`.
    var keySetAtHand: JSONWebKeySet? { get }
}

extension JSONWebKeySet: KeySetAtHand {
    /// A fixed set is always at hand.
    package var keySetAtHand: JSONWebKeySet? { self }
}
