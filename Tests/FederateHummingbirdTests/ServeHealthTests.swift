import Federate
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve` answers `/healthz` at once and turns ready on `/readyz` once its store is
/// open and its warmer has cached every provider's discovery document and keys; and
/// `--recent-login-seconds` is checked like the file's `recent_login_seconds`.
@Suite("federate serve health", .serialized)
struct ServeHealthTests {
    @Test(.timeLimit(.minutes(3)))
    func serveIsLiveAndTurnsReady() async throws {
        let directory = try LifecycleTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--port", String(port), "--recent-login-seconds", "30"],
            directory: directory.path)
        let started = try #require(await serve.nextLine())
        #expect(started.contains("\"url\""))
        let origin = "http://127.0.0.1:\(port)"

        let alive = try await PatientTransport.shared.send(HTTPRequest(url: origin + "/healthz"))
        #expect(alive.status == 200)
        #expect(try JSONParser().parseObject(alive.body) == ["status": "ok"])

        // The warmer fetches the three dev providers' discovery documents and keys.
        var ready: HTTPResponse?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let response = try await PatientTransport.shared.send(HTTPRequest(url: origin + "/readyz"))
            if response.status == 200 {
                ready = response
                break
            }
            #expect(response.status == 503)
            try await Task.sleep(for: .milliseconds(200))
        }
        let answer = try #require(ready, "/readyz never turned ready")
        #expect(try JSONParser().parseObject(answer.body) == ["status": "ready"])

        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
    }

    @Test(arguments: ["--recent-login-seconds=-1", "--recent-login-seconds=nan", "--recent-login-seconds=99999999999"])
    func anUnusableRecentLoginWindowIsRefused(argument: String) async throws {
        let directory = try LifecycleTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = await ExternalProcess.run([CLIProcess.executablePath, "serve", "--port", "0", argument], in: directory, timeout: 60)
        #expect(!output.timedOut)
        #expect(output.status == 1, "\(output.stdout)\(ExternalProcess.tail(output.stderr))")
        let printed = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(printed["error"]?.stringValue == "invalid_configuration", "\(output.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("federate-demo.sqlite").path))
    }
}
