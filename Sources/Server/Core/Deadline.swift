import Synchronization

/// Runs `operation` and answers its result, or `nil` once `timeout` has passed: then the
/// operation is cancelled and left to end on its own, so a connection attempt that hangs
/// never holds the caller (a readiness probe must answer promptly).
func withDeadline<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    let answer = FirstAnswer<T?>()
    return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        answer.waiting(continuation)
        let work = Task { answer.resume(await operation()) }
        Task {
            try? await Task.sleep(for: timeout)
            work.cancel()
            answer.resume(nil)
        }
    }
}

/// A continuation resumed once, by whichever answer comes first.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    /// Sets the continuation (before any answer can come: the tasks start after it).
    func waiting(_ new: CheckedContinuation<T, Never>) {
        continuation.withLock { $0 = new }
    }

    /// Resumes with `value` unless another answer came first.
    func resume(_ value: T) {
        continuation.withLock { waiting in
            waiting?.resume(returning: value)
            waiting = nil
        }
    }
}
