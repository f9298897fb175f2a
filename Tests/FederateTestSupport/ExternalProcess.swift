public import Foundation

/// Runs programs the tests depend on (the interop harness, Python relying parties) with a
/// timeout, collecting their output.
public enum ExternalProcess {
    /// What a program printed and how it ended.
    public struct Output: Sendable {
        /// The exit status (-1 when it could not start).
        public var status: Int32
        /// Standard output.
        public var stdout: String
        /// Standard error.
        public var stderr: String
        /// Whether it was stopped for running past its timeout.
        public var timedOut: Bool
    }

    /// Thrown when no `Package.swift` is found above the test's source file.
    public struct PackageRootNotFound: Error, CustomStringConvertible {
        /// The file the search started from.
        public let file: String
        public var description: String { "no Package.swift above \(file)" }
    }

    /// The directory holding `Package.swift`, walking up from `file`.
    public static func packageRoot(file: String = #filePath) throws -> URL {
        var candidate = URL(fileURLWithPath: file).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
            let parent = candidate.deletingLastPathComponent()
            guard parent.path != candidate.path else { throw PackageRootNotFound(file: file) }
            candidate = parent
        }
        return candidate
    }

    /// The last `count` characters of `text`, for failure messages.
    public static func tail(_ text: String, _ count: Int = 4000) -> String {
        text.count <= count ? text : "…" + String(text.suffix(count))
    }

    /// Runs `arguments` through `/usr/bin/env` in `directory`. Pipes are drained and the exit
    /// awaited on threads of their own (``BlockingThread``), never on Swift's cooperative pool
    /// or Dispatch's global queues. Past `timeout` the process gets SIGTERM, then SIGKILL.
    public static func run(_ arguments: [String], in directory: URL, timeout: TimeInterval) async -> Output {
        await BlockingThread.run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            let out = ChildProcesses.pipe(), err = ChildProcesses.pipe()
            process.standardOutput = out
            process.standardError = err
            do {
                try ChildProcesses.start(process)
            } catch {
                return Output(status: -1, stdout: "", stderr: "cannot start \(arguments): \(error)", timedOut: false)
            }
            let group = DispatchGroup()
            let stdout = Collected(), stderr = Collected()
            for (pipe, sink) in [(out, stdout), (err, stderr)] {
                group.enter()
                BlockingThread.start {
                    sink.data = pipe.fileHandleForReading.readDataToEndOfFile()
                    group.leave()
                }
            }
            let timedOut = Collected()
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                guard process.isRunning else { return }
                timedOut.flag = true
                process.terminate()
                DispatchQueue.global().asyncAfter(deadline: .now() + 15) {
                    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                }
            }
            process.waitUntilExit()
            // A grandchild that kept the pipes open must not hang us forever.
            _ = group.wait(timeout: .now() + 30)
            return Output(
                status: process.terminationStatus,
                stdout: String(decoding: stdout.data, as: UTF8.self),
                stderr: String(decoding: stderr.data, as: UTF8.self),
                timedOut: timedOut.flag
            )
        }
    }

    /// A mutable box shared between Dispatch blocks (accesses are ordered by the group / exit).
    final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var _data = Data()
        private var _flag = false
        var data: Data {
            get { lock.withLock { _data } }
            set { lock.withLock { _data = newValue } }
        }
        var flag: Bool {
            get { lock.withLock { _flag } }
            set { lock.withLock { _flag = newValue } }
        }
    }
}
