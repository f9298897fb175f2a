import Foundation
import FederateTestSupport
import Testing

/// Federate's CLI against a real, third-party OpenID provider nobody here wrote:
/// django-oauth-toolkit, started on 127.0.0.1 by `Tests/Interop/run_interop.sh`, with a
/// scripted browser signing in through its login form. See `Tests/Interop/README.md`.
///
/// Needs `python3` with `venv` and `pip` and PyPI (first run builds `.venv-interop` in the
/// package root, which takes a minute or two). Missing Python fails the test: it never skips.
@Suite("Interop: django-oauth-toolkit")
struct DjangoOAuthToolkitInteropTests {
    /// Every scenario `run_interop.sh` must report, each with `"ok": true`.
    static let expectedScenarios = [
        "provider_selftest",
        "verify_id_token",
        "login_client_secret_basic",
        "login_client_secret_post",
        "login_public_client",
        "refresh",
        "revocation",
        "login_wrong_client_secret",
    ]

    /// Generous: the first run creates the venv and pip-installs Django and friends.
    static let harnessTimeout: TimeInterval = 900

    @Test("federate login/token against django-oauth-toolkit", .timeLimit(.minutes(20)))
    func federateAgainstDjangoOAuthToolkit() async throws {
        let root = try Self.packageRoot()
        let binary = CLIProcess.executablePath
        try #require(FileManager.default.isExecutableFile(atPath: binary), "federate binary not found at \(binary)")

        // Fail (not skip) with a clear message when Python is missing.
        let python = await Self.run(["python3", "-c", "import sys, venv; assert sys.version_info >= (3, 10), sys.version"], in: root, timeout: 60)
        try #require(python.status == 0, "python3 (3.10+, with venv) is required for the interop tests: \(python.stderr)")

        let result = await Self.run(["bash", "Tests/Interop/run_interop.sh", binary], in: root, timeout: Self.harnessTimeout)
        try #require(!result.timedOut, "run_interop.sh did not finish within \(Int(Self.harnessTimeout))s\n\(Self.tail(result.stderr))")

        var seen: [String: Bool] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = object["scenario"] as? String
            else { continue }
            let ok = object["ok"] as? Bool ?? false
            seen[name] = ok
            #expect(ok, "interop scenario '\(name)' failed: \(line)")
        }
        for name in Self.expectedScenarios {
            #expect(seen[name] != nil, "interop scenario '\(name)' did not run")
        }
        #expect(result.status == 0, "run_interop.sh exited \(result.status)\n\(Self.tail(result.stderr))")
    }

    // MARK: - Support

    /// The directory holding `Package.swift`, walking up from this file.
    static func packageRoot(file: String = #filePath) throws -> URL {
        var candidate = URL(fileURLWithPath: file).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path) {
            let parent = candidate.deletingLastPathComponent()
            try #require(parent.path != candidate.path, "no Package.swift above \(file)")
            candidate = parent
        }
        return candidate
    }

    static func tail(_ text: String, _ count: Int = 4000) -> String {
        text.count <= count ? text : "…" + String(text.suffix(count))
    }

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// Runs `arguments` through `/usr/bin/env` in `directory`. Pipes are drained and the exit
    /// awaited on threads of their own (``BlockingThread``), never on Swift's cooperative pool
    /// or Dispatch's global queues. Past `timeout` the
    /// process gets SIGTERM (run_interop.sh then stops its provider), then SIGKILL.
    static func run(_ arguments: [String], in directory: URL, timeout: TimeInterval) async -> Output {
        await BlockingThread.run {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardInput = FileHandle.nullDevice
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            do {
                try process.run()
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
