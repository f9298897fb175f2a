import Synchronization

/// A first-come, first-served lock for async code: one SQLite connection runs one
/// transaction at a time.
final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` while holding the lock.
    func withLock<T, Failure: Error>(_ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        // Uncontended: take it without suspending (a suspension is a trip through the executor).
        if state.withLock({ Self.takeIfFree(&$0) }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if Self.takeIfFree(&state) { return true }
                state.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    /// Takes the lock if nobody holds it.
    private static func takeIfFree(_ state: inout State) -> Bool {
        guard !state.locked else { return false }
        state.locked = true
        return true
    }

    private func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
