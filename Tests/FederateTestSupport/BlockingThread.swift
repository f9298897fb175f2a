import Foundation

/// Runs blocking work (waiting for a process, reading a pipe to its end) on a thread of its
/// own. Neither Swift's cooperative pool nor Dispatch's global queues may be used for that
/// on Linux: with two cores both share a small pool of worker threads, and a few blocked
/// workers stall every timer and HTTP exchange in the test process.
public enum BlockingThread {
    /// Runs `work` on a new thread and returns its result.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.start()
        }
    }

    /// Starts `work` on a new thread without waiting for it.
    public static func start(_ work: @escaping @Sendable () -> Void) {
        Thread(block: work).start()
    }
}
