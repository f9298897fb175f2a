import FederateTokens
import Foundation
import Synchronization

/// The sessions one ``AccountService`` found active, valid while the store's revocation
/// epoch (`SessionStore.revocationEpoch()`) stays what it was when they were checked.
///
/// Coherence: the epoch is reread at most `AccountServiceConfiguration.revocationCheckInterval`
/// after the last read began, before any cached answer is given; a different epoch empties
/// the cache. A store advances the epoch in the same transaction as the revocation, so a
/// revocation committed at `t` is seen by every read that begins after `t`, and no instance
/// answers from the cache after `t + interval`. An entry is added only under the epoch read
/// before the store was asked, so an answer computed from a state older than a revocation
/// never outlives that revocation's epoch. A store error fails the check (nothing is
/// answered from a cache whose epoch could not be confirmed in time).
final class SessionRevocationCache: Sendable {
    /// The epoch a check runs under, and the cache's generation (advanced by `invalidate()`)
    /// when it was read: an answer is cached only if both still hold when it is ready.
    struct Snapshot: Sendable, Equatable {
        let epoch: Int64
        let generation: UInt64
    }

    private struct State {
        /// The epoch last read, when the read began (the clock's time), and the active sessions.
        var epoch: Int64?
        var readAt: Date?
        var generation: UInt64 = 0
        /// By session ID, byte for byte (`ExactString`).
        var active: [ExactString: AccountSession] = [:]

        var snapshot: Snapshot? { epoch.map { Snapshot(epoch: $0, generation: generation) } }
    }

    private let store: any SessionStore
    private let interval: TimeInterval
    private let capacity: Int
    private let state = Mutex(State())

    init(store: any SessionStore, interval: Duration, capacity: Int) {
        self.store = store
        self.interval = interval.inSeconds
        self.capacity = max(0, capacity)
    }

    /// Whether the cache is on (a positive interval and capacity).
    var isEnabled: Bool { interval > 0 && capacity > 0 }

    /// The snapshot to check a session under at `now`: the cached epoch while it is fresh,
    /// else the store's (`nil` when the store keeps none: then nothing is cached).
    func snapshot(now: Date) async throws(FederateError) -> Snapshot? {
        let (fresh, generation) = freshSnapshot(now: now)
        if let fresh { return fresh }
        guard let epoch = try await store.revocationEpoch() else { return nil }
        return state.withLock { state -> Snapshot? in
            // Invalidated meanwhile: this read may predate the change; use it uncached.
            guard state.generation == generation else { return nil }
            // A read that began after this one was recorded first: keep it.
            if let readAt = state.readAt, readAt > now, now >= readAt.addingTimeInterval(-interval) { return nil }
            if state.epoch != epoch { state.active.removeAll(keepingCapacity: true) }
            state.epoch = epoch
            state.readAt = now
            return state.snapshot
        }
    }

    /// The cached epoch's snapshot while it is fresh at `now` (`nil` otherwise), and the
    /// cache's generation: what `snapshot(now:)` answers without asking the store.
    func freshSnapshot(now: Date) -> (snapshot: Snapshot?, generation: UInt64) {
        state.withLock { state -> (Snapshot?, UInt64) in
            guard let readAt = state.readAt, now >= readAt, now.timeIntervalSince(readAt) < interval else { return (nil, state.generation) }
            return (state.snapshot, state.generation)
        }
    }

    /// Whether `session` was found active under `snapshot`.
    func isKnownActive(_ session: AccountSession, under snapshot: Snapshot) -> Bool {
        state.withLock { state in state.snapshot == snapshot && state.active[ExactString(session.sessionID)] == session }
    }

    /// Remembers that `session` was found active by a check that began under `snapshot`.
    func rememberActive(_ session: AccountSession, under snapshot: Snapshot) {
        state.withLock { state in
            guard state.snapshot == snapshot else { return }
            if state.active.count >= capacity { state.active.removeAll(keepingCapacity: true) }
            state.active[ExactString(session.sessionID)] = session
        }
    }

    /// Forgets everything, and rereads the epoch on the next check: this instance just
    /// changed something that can end sessions. Checks under way cache nothing.
    func invalidate() {
        state.withLock { state in
            state.active.removeAll(keepingCapacity: true)
            state.epoch = nil
            state.readAt = nil
            state.generation &+= 1
        }
    }
}
