import Dispatch
import Foundation
import Synchronization

/// The thread an SQLite store runs its statements on: a `TaskExecutor` of its own, so that
/// a blocking SQLite call (a busy wait on another process's write lock, a WAL checkpoint's
/// `fsync`) never holds one of Swift concurrency's cooperative threads.
///
/// A store operation enters it once, with `withTaskExecutorPreference`, and runs all its
/// statements there: two thread switches per operation, however many statements it runs.
final class SQLiteThread: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var next = 0
        var stopped = false
    }

    private let queue = Mutex(Queue())
    /// The thread's POSIX identity, once it runs.
    private let identity = Mutex<pthread_t?>(nil)
    /// Signalled once per job enqueued, and once to stop.
    private let wake = DispatchSemaphore(value: 0)

    /// Starts the thread. It runs until ``stop()``.
    init(name: String) {
        let thread = Thread { [self] in
            identity.withLock { $0 = pthread_self() }
            Thread.current.name = name  // for ps and gdb; best effort (Foundation may not pass it on)
            self.runJobs()
        }
        thread.start()
    }

    /// Runs `operation` on this thread (and whatever it awaits that is not isolated to an actor).
    func run<T, Failure: Error>(_ operation: () async throws(Failure) -> T) async throws(Failure) -> T {
        try await withTaskExecutorPreference(self, operation: operation)
    }

    /// Lets the thread finish the jobs it has and end. Jobs enqueued later run on Swift's
    /// global executor, so nothing waits for a thread that is gone.
    func stop() {
        queue.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool {
        identity.withLock { identity in identity.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    func enqueue(_ job: UnownedJob) {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.stopped else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted {
            wake.signal()
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    private func runJobs() {
        while true {
            wake.wait()
            guard let job = nextJob() else { return }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The oldest job, or `nil` once stopped with none left.
    private func nextJob() -> UnownedJob? {
        queue.withLock { queue -> UnownedJob? in
            guard queue.next < queue.jobs.count else { return nil }
            let job = queue.jobs[queue.next]
            queue.next += 1
            if queue.next == queue.jobs.count {  // Drained: reuse the storage.
                queue.jobs.removeAll(keepingCapacity: true)
                queue.next = 0
            }
            return job
        }
    }
}
