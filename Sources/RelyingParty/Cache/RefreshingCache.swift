import FederateTokens
import Synchronization

/// A single cached value refreshed from a remote source: the mechanism behind key-set and
/// discovery caching.
///
/// - Fresh values are returned under a brief lock (no actor hop, no await on the hot path).
/// - One fetch at a time: concurrent callers that need a fetch share it (single flight).
/// - Forced refreshes (unknown `kid`) are limited to one per ``CachePolicy/forcedRefreshInterval``.
/// - When a refresh fails, the last good value keeps serving until
///   ``CachePolicy/maximumStaleness`` after its expiry, retrying at most every
///   ``CachePolicy/retryDelayAfterFailure``.
final class RefreshingCache<Value: Sendable>: Sendable {
    typealias Fetch = @Sendable () async throws(FederateError) -> (value: Value, lifetime: Duration)

    private struct Entry {
        let value: Value
        let expiresAt: ContinuousClock.Instant
    }

    private struct State {
        var current: Entry?
        var inFlight: Task<Result<Entry, FederateError>, Never>?
        var lastForcedRefresh: ContinuousClock.Instant?
        var retryNotBefore: ContinuousClock.Instant?
        var fetchCount = 0
    }

    private let policy: CachePolicy
    private let fetch: Fetch
    private let state = Mutex(State())
    private let clock: FederateClock
    private let metrics: CacheMetrics?

    /// Creates a cache on `clock`; `fetch` throws errors with the code callers should see.
    /// `metrics`, when given, counts fetches, refused refetches and stale serves.
    init(policy: CachePolicy, clock: FederateClock, metrics: CacheMetrics? = nil, fetch: @escaping Fetch) {
        self.policy = policy
        self.clock = clock
        self.metrics = metrics
        self.fetch = fetch
    }

    /// How many fetches have started (for tests and metrics).
    var fetchCount: Int { state.withLock { $0.fetchCount } }

    /// The cached value when ``value()`` would serve it even if a fetch failed now: fresh,
    /// or stale within ``CachePolicy/maximumStaleness``; `nil` otherwise. Fetches nothing.
    var warmValue: Value? {
        let now = clock.instant
        return state.withLock { state in
            guard let current = state.current, now < current.expiresAt + policy.maximumStaleness else { return nil }
            return current.value
        }
    }

    private enum Step {
        case ready(Entry)
        /// An expired value served while the source is failing.
        case stale(Entry)
        case wait(Task<Result<Entry, FederateError>, Never>)
    }

    /// The current value, fetching when there is none or it expired. A fresh value is
    /// returned on the caller's executor without suspending.
    nonisolated(nonsending) func value() async throws(FederateError) -> Value {
        let now = clock.instant
        let step: Step = state.withLock { state in
            if let current = state.current {
                if now < current.expiresAt { return .ready(current) }
                if let retry = state.retryNotBefore, now < retry, now < current.expiresAt + policy.maximumStaleness {
                    return .stale(current)
                }
            }
            return .wait(state.inFlight ?? startFetch(&state))
        }
        return try await resolve(step).value
    }

    /// A value other than the one the caller has (`isNewer` tells): the current one if a
    /// concurrent caller already refreshed, else a forced refetch, or `nil` when the rate
    /// limit forbids a refetch now.
    nonisolated(nonsending) func refreshed(isNewer: (Value) -> Bool) async throws(FederateError) -> Value? {
        let now = clock.instant
        let step: Step? = state.withLock { state in
            if let current = state.current, isNewer(current.value) { return .ready(current) }
            if let inFlight = state.inFlight { return .wait(inFlight) }
            if let last = state.lastForcedRefresh, now < last + policy.forcedRefreshInterval { return nil }
            state.lastForcedRefresh = now
            return .wait(startFetch(&state))
        }
        guard let step else {
            metrics?.refetchRefused.increment()
            return nil
        }
        let value = try await resolve(step).value
        return isNewer(value) ? value : nil
    }

    private nonisolated(nonsending) func resolve(_ step: Step) async throws(FederateError) -> Entry {
        switch step {
        case .ready(let entry):
            return entry
        case .stale(let entry):
            metrics?.staleServed.increment()
            return entry
        case .wait(let task):
            switch await task.value {
            case .success(let entry):
                return entry
            case .failure(let error):
                let now = clock.instant
                let stale: Entry? = state.withLock { state in
                    guard let current = state.current, now < current.expiresAt + policy.maximumStaleness else { return nil }
                    return current
                }
                if let stale {
                    metrics?.staleServed.increment()
                    return stale
                }
                throw error
            }
        }
    }

    /// Starts the one fetch; called with the lock held.
    private func startFetch(_ state: inout State) -> Task<Result<Entry, FederateError>, Never> {
        state.fetchCount += 1
        let task = Task { [fetch, policy, clock, metrics] () -> Result<Entry, FederateError> in
            let result: Result<(value: Value, lifetime: Duration), FederateError>
            do throws(FederateError) {
                result = .success(try await fetch())
                metrics?.fetchSucceeded.increment()
            } catch {
                result = .failure(error)
                metrics?.fetchFailed.increment()
            }
            let now = clock.instant
            return self.state.withLock { state -> Result<Entry, FederateError> in
                state.inFlight = nil
                switch result {
                case .success(let fetched):
                    let entry = Entry(value: fetched.value, expiresAt: now + fetched.lifetime)
                    state.current = entry
                    state.retryNotBefore = nil
                    return .success(entry)
                case .failure(let error):
                    state.retryNotBefore = now + policy.retryDelayAfterFailure
                    return .failure(error)
                }
            }
        }
        state.inFlight = task
        return task
    }
}
