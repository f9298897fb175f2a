import FederateTestSupport
import Foundation
import Testing
import FederateRelyingParty
import FederateTokens
import FederateURLSession

/// A `loopback_server.py` subprocess listening on 127.0.0.1.
///
/// The script serves until its stdin closes, so a server never outlives the test process,
/// even if the process crashes.
final class LoopbackServer: Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("loopback_server.py")

    private init(port: Int, process: Process, input: Pipe) {
        self.port = port
        self.process = process
        self.input = input
    }

    /// Starts a server and waits until it listens.
    static func start() async throws -> LoopbackServer {
        let (process, input, port) = try await offThePool { try run() }
        return LoopbackServer(port: port, process: process, input: input)
    }

    /// A port on 127.0.0.1 that refuses connections while the returned value lives: the script
    /// holds it bound and never listens, so a server a parallel test starts cannot take it.
    static func refusing() async throws -> LoopbackServer {
        let (process, input, port) = try await offThePool { try run("refusing") }
        return LoopbackServer(port: port, process: process, input: input)
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    /// Runs the script and reads the port it prints on its first line.
    private static func run(_ arguments: String...) throws -> (Process, Pipe, Int) {
        let process = Process()
        let input = ChildProcesses.pipe()
        let output = ChildProcesses.pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        process.standardInput = input
        process.standardOutput = output
        try ChildProcesses.start(process)

        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }  // the script exited without printing
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else { throw ServerError.noPort(text) }
        return (process, input, port)
    }

    enum ServerError: Error {
        case noPort(String)
    }

    /// Runs blocking work (starting Python, reading a pipe) on its own thread: blocking one of
    /// the few threads of Swift's cooperative pool would delay every other test's timers.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}

/// The server all tests share, started by the first test that needs it. It lives until the
/// test process exits. (One server rather than one per test: starting dozens of Python
/// processes at once on a small machine slows every test down.)
private let sharedServer = Task { try await LoopbackServer.start() }

/// Runs `body` with the shared loopback server.
func withServer<R>(_ body: (LoopbackServer) async throws -> R) async throws -> R {
    try await body(try await sharedServer.value)
}

/// The request as `/echo` saw it.
struct Echo: Decodable {
    let method: String
    let target: String
    let headers: [[String]]
    let body: String

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }

    /// Every value sent for `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    var bodyBytes: [UInt8] {
        Data(base64Encoded: body).map { [UInt8]($0) } ?? []
    }
}

/// Measures how long `body` takes and returns the error it throws (or `nil`).
func timedFailure(_ body: () async throws -> HTTPResponse) async -> (error: (any Error)?, elapsed: Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        _ = try await body()
        return (nil, clock.now - start)
    } catch {
        return (error, clock.now - start)
    }
}
