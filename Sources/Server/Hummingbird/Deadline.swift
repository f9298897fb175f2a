import Synchronization

/// Runs `operation` and answers its result, or `nil` once `timeout` has passed: then the
/// operation is cancelled and left to end on its own, so a connection attempt that hangs
/// never holds the caller (a readiness probe must answer promptly).
func withDeadline<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let waiting = Mutex<CheckedContinuation<T?, Never>?>(nil)
    let finish: @Sendable (T?) -> Void = { value in
        waiting.withLock { continuation in
            continuation?.resume(returning: value)
            continuation = nil
        }
    }
    return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        waiting.withLock { $0 = continuation }
        let work = Task { finish(await operation()) }
        Task {
            try? await Task.sleep(for: timeout)
            work.cancel()
            finish(nil)
        }
    }
}
