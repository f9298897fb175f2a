import Crypto
import FederateTokens
import Synchronization

/// Introspection results by the SHA-256 of the token (the token is never kept), with one call
/// in flight per token shared by all its concurrent callers, and a bounded size.
final class IntrospectionCache: Sendable {
    typealias Key = SHA256Digest
    typealias Outcome = Result<IntrospectionResponse, FederateError>

    private struct Entry {
        let response: IntrospectionResponse
        let expiresAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var inFlight: [Key: Task<Outcome, Never>] = [:]
        var calls = 0
    }

    private let state = Mutex(State())
    private let clock: FederateClock
    private let maximumEntries: Int

    init(clock: FederateClock, maximumEntries: Int) {
        self.clock = clock
        self.maximumEntries = max(0, maximumEntries)
    }

    /// How many calls to the endpoint have started (for tests).
    var callCount: Int { state.withLock { $0.calls } }

    /// How many results are cached (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    static func key(for token: String) -> Key { SHA256.hash(data: Array(token.utf8)) }

    /// The cached result for `key`, else the result of the one call in flight for it, else
    /// the result of a new call of `fetch`; `lifetime` says how long a result may be kept.
    func value(
        for key: Key, fetch: @escaping @Sendable () async -> Outcome, lifetime: @escaping @Sendable (IntrospectionResponse) -> Duration
    ) async -> Outcome {
        let now = clock.instant
        let step: Step = state.withLock { state in
            if let entry = state.entries[key] {
                if now < entry.expiresAt { return .cached(entry.response) }
                state.entries.removeValue(forKey: key)
            }
            if let running = state.inFlight[key] { return .wait(running) }
            state.calls += 1
            let task = Task<Outcome, Never> { [self] in
                let outcome = await fetch()
                finish(key, outcome, lifetime: lifetime)
                return outcome
            }
            state.inFlight[key] = task
            return .wait(task)
        }
        switch step {
        case .cached(let response): return .success(response)
        case .wait(let task): return await task.value
        }
    }

    private enum Step {
        case cached(IntrospectionResponse)
        case wait(Task<Outcome, Never>)
    }

    private func finish(_ key: Key, _ outcome: Outcome, lifetime: (IntrospectionResponse) -> Duration) {
        let now = clock.instant
        state.withLock { state in
            state.inFlight.removeValue(forKey: key)
            guard case .success(let response) = outcome, maximumEntries > 0 else { return }
            let keep = lifetime(response)
            guard keep > .zero else { return }
            if state.entries.count >= maximumEntries {
                state.entries = state.entries.filter { now < $0.value.expiresAt }
                if state.entries.count >= maximumEntries {
                    // Amortised: one sweep frees a quarter, so the next inserts are O(1).
                    var drop = state.entries.count - maximumEntries * 3 / 4
                    for candidate in state.entries.keys where drop > 0 {
                        state.entries.removeValue(forKey: candidate)
                        drop -= 1
                    }
                }
            }
            state.entries[key] = Entry(response: response, expiresAt: now + keep)
        }
    }
}
