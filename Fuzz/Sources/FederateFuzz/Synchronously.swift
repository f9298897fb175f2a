import Dispatch

/// Where ``synchronously(_:)`` leaves the task's result.
final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}

/// Runs `body` to its end from libFuzzer's synchronous entry point. The verifications the
/// targets run have their keys at hand (a fixed key set) and never suspend, so the task ends
/// at once; the semaphore orders the write of the result before its read.
func synchronously<Value>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let box = ResultBox<Value>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { preconditionFailure("the task ended without a result") }
    return value
}
