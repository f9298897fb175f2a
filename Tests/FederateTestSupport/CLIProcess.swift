import Foundation
import Synchronization

/// Runs the built `federate` executable for tests, without blocking Swift concurrency's
/// cooperative threads (pipes are read on threads of their own, see ``BlockingThread``).
public struct CLIProcess: Sendable {
    /// What a finished run produced.
    public struct Output: Sendable {
        /// The exit status.
        public let status: Int32
        /// Standard output.
        public let stdout: String
        /// Standard error.
        public let stderr: String
        /// Standard output split into non-empty lines.
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// The path of the `federate` binary built next to the test bundle.
    public static var executablePath: String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // The test runner may live inside a `.xctest` bundle directory.
        while directory.pathComponents.count > 1, !FileManager.default.fileExists(atPath: directory.appendingPathComponent("federate").path)
        {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("federate").path
    }

    /// Runs `federate` with `arguments`, feeding `stdin`, and waits for it to exit: at most
    /// `timeout` seconds, after which it is killed and the run fails (status 9, and standard
    /// error says so) instead of keeping the test waiting for ever.
    public static func run(
        _ arguments: [String], stdin: String = "", environment: [String: String]? = nil, timeout: Int = 300
    ) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = ChildProcesses.pipe(), output = ChildProcesses.pipe(), error = ChildProcesses.pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            exited.continuation.yield($0.terminationStatus)
            exited.continuation.finish()
        }
        try ChildProcesses.start(process)
        let deadline = ProcessDeadline(process, seconds: timeout)
        async let out = readAll(output.fileHandleForReading)
        async let err = readAll(error.fileHandleForReading)
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let (stdout, stderr) = await (out, err)
        var status: Int32 = -1
        for await code in exited.stream { status = code }
        let killed = deadline.disarm() ? "" : "\n[CLIProcess: federate \(arguments.first ?? "") killed after \(timeout) s]"
        return Output(status: status, stdout: stdout, stderr: stderr + killed)
    }

    /// Reads a file handle to its end on a thread of its own.
    static func readAll(_ handle: FileHandle) async -> String {
        await BlockingThread.run { String(decoding: handle.readDataToEndOfFile(), as: UTF8.self) }
    }
}

/// A running `federate` process fed line by line, for testing interactive use.
public final class InteractiveCLI: Sendable {
    private let process = Process()
    private let input = ChildProcesses.pipe()
    private let standardOutput: PipeLineReader
    private let standardError: PipeLineReader?
    private let deadline: ProcessDeadline

    /// Starts `federate` with `arguments`; with `readStandardError`, its standard error can
    /// be read with ``nextErrorLine()`` (otherwise it is discarded).
    public convenience init(_ arguments: [String], readStandardError: Bool = false) throws {
        try self.init(executable: CLIProcess.executablePath, arguments: arguments, readStandardError: readStandardError)
    }

    /// Starts any program (a test's own server, say) the same way, in `directory` when given,
    /// with `environment` added to this process's. Past `lifetime` seconds it is killed, so its
    /// pipes end and a test waiting for a line it never prints fails instead of hanging.
    public init(
        executable: String, arguments: [String], directory: String? = nil, environment: [String: String] = [:],
        readStandardError: Bool = false,
        lifetime: Int = 600
    ) throws {
        let output = ChildProcesses.pipe()
        standardOutput = PipeLineReader(output.fileHandleForReading)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added } }
        process.standardInput = input
        process.standardOutput = output
        if readStandardError {
            let error = ChildProcesses.pipe()
            standardError = PipeLineReader(error.fileHandleForReading)
            process.standardError = error
        } else {
            standardError = nil
            process.standardError = FileHandle.nullDevice
        }
        try ChildProcesses.start(process)
        deadline = ProcessDeadline(process, seconds: lifetime)
    }

    deinit {
        deadline.disarm()
    }

    /// Writes one line to the process's standard input (without closing it).
    public func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line of standard output, or `nil` at its end.
    public func nextLine() async -> String? {
        await standardOutput.nextLine()
    }

    /// The next line of standard error, or `nil` at its end (or when it is not read).
    public func nextErrorLine() async -> String? {
        await standardError?.nextLine()
    }

    /// Closes standard input, reads what is left of standard output and waits for the exit.
    public func finish() async -> (status: Int32, remainingOutput: String) {
        try? input.fileHandleForWriting.close()
        let rest = await standardOutput.remainder()
        let status = await BlockingThread.run { [process] in
            process.waitUntilExit()
            return process.terminationStatus
        }
        return (status, rest)
    }

    /// Sends `signal` and waits for the exit: the status, and whether the process exited by
    /// itself (`false` when a signal, or a trap, ended it).
    public func send(signal: Int32) async -> (status: Int32, exited: Bool) {
        kill(process.processIdentifier, signal)
        return await BlockingThread.run { [process] in
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason == .exit)
        }
    }

    /// Stops the process (``ChildProcesses/stop(_:)``: SIGTERM, SIGKILL after 10 s) and waits
    /// for it to exit, on a thread of its own.
    public func terminate() async {
        await BlockingThread.run { [process] in ChildProcesses.stop(process) }
    }
}

/// Kills a test's child process (SIGKILL) that is still running `seconds` after it started,
/// unless disarmed first.
final class ProcessDeadline: Sendable {
    private let armed = Mutex(true)

    init(_ process: Process, seconds: Int) {
        Task.detached { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            // Checked under the lock: a disarmed deadline never signals a process it no longer owns.
            self?.armed.withLock { armed in
                guard armed, process.isRunning else { return }
                armed = false
                kill(process.processIdentifier, SIGKILL)
            }
        }
    }

    /// Stops the deadline; whether it had not fired yet.
    @discardableResult
    func disarm() -> Bool {
        armed.withLock { armed in
            defer { armed = false }
            return armed
        }
    }
}
