public import Foundation
import Synchronization

/// A ``ReplayStore`` in this process's memory: for one server instance, or tests. Several
/// instances behind a load balancer need a shared store (an account store on SQL).
///
/// Bounded: expired entries are dropped at most once per `pruneInterval` of insertions, and
/// when it holds `capacity` unexpired entries it refuses new proofs (`dpop_proof_replayed`)
/// rather than forget one early.
public final class InMemoryReplayStore: ReplayStore {
    private struct State {
        /// By the key's exact bytes (`ExactString`), as the SQL stores compare them.
        var entries: [ExactString: Date] = [:]
        var insertionsSincePrune = 0
    }

    private let state = Mutex(State())
    /// The most unexpired entries it holds.
    package let capacity: Int

    /// Creates an empty store holding at most `capacity` entries.
    public init(capacity: Int = 1_000_000) {
        self.capacity = max(1, capacity)
    }

    public func consume(_ key: String, expiresAt: Date, now: Date) async throws(FederateError) -> Bool {
        try state.withLock { (state) throws(FederateError) -> Bool in
            let key = ExactString(key)
            if let expiry = state.entries[key], expiry > now { return false }
            state.insertionsSincePrune += 1
            if state.insertionsSincePrune >= 1024 || state.entries.count >= capacity {
                state.entries = state.entries.filter { $0.value > now }
                state.insertionsSincePrune = 0
            }
            guard state.entries.count < capacity else {
                throw FederateError(.dpopProofReplayed, "the replay store is full: the proof cannot be recorded")
            }
            state.entries[key] = expiresAt
            return true
        }
    }

    /// How many entries it holds now (expired ones included until pruned).
    package var count: Int { state.withLock { $0.entries.count } }
}
