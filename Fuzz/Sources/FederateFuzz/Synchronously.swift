import Dispatch

/// Runs async code to its end from libFuzzer's synchronous entry point, on one task made
/// once. A task per input would be freed after the input returns, so libFuzzer's leak check
/// (`-detect_leaks=1`) would see more allocations than frees on every input and scan the heap
/// each time (5 × slower). The targets' verifications have their keys at hand and never
/// suspend.
final class AsyncRunner: @unchecked Sendable {
    /// The one runner of the process.
    static let shared = AsyncRunner()

    private let submitted = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// The job in hand: written before `submitted` is signalled, cleared before `finished` is.
    private var job: (@Sendable () async -> Void)?

    private init() {
        Task.detached { [self] in
            while true {
                submitted.wait()
                if let job { await job() }
                job = nil
                finished.signal()
            }
        }
    }

    /// Runs `body` and returns once it has ended and released everything it held.
    func run(_ body: @escaping @Sendable () async -> Void) {
        job = body
        submitted.signal()
        finished.wait()
    }
}

/// Where ``synchronously(_:)`` leaves the result.
final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}

/// `body`'s result, run on the ``AsyncRunner``.
func synchronously<Value>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let box = ResultBox<Value>()
    AsyncRunner.shared.run { box.value = await body() }
    guard let value = box.value else { preconditionFailure("the job ended without a result") }
    return value
}
