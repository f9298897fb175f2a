import Dispatch
import Synchronization

/// A serial executor that counts the jobs enqueued on it. An async call made on it that stays
/// on its caller's executor enqueues nothing; one that hops to another executor enqueues a job
/// here to come back. It counts what `LOAD_HOPS=1 scripts/load.sh` counts in a server
/// (`swift_task_switch`), deterministically, in a test.
public final class CountingExecutor: SerialExecutor {
    private let queue = DispatchQueue(label: "federate.counting-executor")
    private let count = Atomic<Int>(0)

    public init() {}

    /// The jobs enqueued so far.
    public var enqueued: Int { count.load(ordering: .sequentiallyConsistent) }

    public func enqueue(_ job: consuming ExecutorJob) {
        count.add(1, ordering: .sequentiallyConsistent)
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An actor on a ``CountingExecutor``: runs an operation isolated to itself and tells how many
/// times the operation left the executor and came back.
public actor ExecutorSwitchCounter {
    private let executor = CountingExecutor()

    public init() {}

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Runs `operation` on this actor's executor; returns its result and the number of jobs
    /// enqueued back on the executor while it ran (0: it never left).
    public func run<T: Sendable>(
        _ operation: nonisolated(nonsending) @Sendable () async throws -> T
    ) async throws -> (value: T, switches: Int) {
        let before = executor.enqueued
        let value = try await operation()
        return (value, executor.enqueued - before)
    }
}
