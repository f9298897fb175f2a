public import Foundation
import Synchronization

/// Starts the tests' child processes one at a time, with pipes no other child can inherit.
///
/// Foundation's `Process.run()` on Linux closes, in the child, the descriptors it found open
/// when it prepared the spawn. A descriptor created on another thread meanwhile (the pipes of
/// a process another test is about to start, or the socket Foundation itself watches to learn
/// that a child exited) is inherited by this child. When this child lives long (a loopback
/// server that waits for its standard input to close), the other process's output never
/// ends and its exit is never seen: a test run hung that way, with two zombie children and
/// two tests waiting for them for ever. So every test spawns through ``start(_:)``, one at
/// a time, and makes its pipes with ``pipe()``, whose descriptors close on `exec` (the
/// child's own copy, made with `dup2`, does not).
public enum ChildProcesses {
    private static let spawning = Mutex(())

    /// A pipe whose descriptors are closed on `exec`, created while no child is being started.
    public static func pipe() -> Pipe {
        spawning.withLock { _ in
            let pipe = Pipe()
            for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
            }
            return pipe
        }
    }

    /// Starts `process` (its pipes made with ``pipe()``) while no other child is being started.
    public static func start(_ process: Process) throws {
        try spawning.withLock { _ throws in try process.run() }
    }

    /// Stops `process` (SIGTERM) and waits for it to exit; SIGKILL after 10 s. A child can
    /// start with SIGTERM blocked (it inherits the mask of the thread that spawned it, and a
    /// parallel test's service group blocks it on some threads): seen as a Django server that
    /// never exited, with the test waiting for ever. Blocks: call it off Swift's cooperative
    /// threads (``BlockingThread``) or where a test can afford it.
    public static func stop(_ process: Process) {
        process.terminate()
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
