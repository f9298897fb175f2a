import Federate
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve`'s `GET /metrics`: absent (404) unless the configuration file enables it,
/// then Prometheus text behind the bearer token the file names (401 without it or with
/// another), and an enabled endpoint without a token is refused unless marked unprotected.
@Suite("federate serve /metrics")
struct ServeMetricsTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Polls `/readyz` until the warmer has fetched the providers' keys.
    static func waitUntilReady(_ origin: String) async throws {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: origin + "/readyz")).status == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("/readyz never turned ready")
    }

    @Test(.timeLimit(.minutes(3)))
    func metricsAreOffByDefault() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--port", String(port)], directory: directory.path)
        _ = try #require(await serve.nextLine())
        let response = try await AsyncHTTPClientTransport.shared.send(HTTPRequest(url: "http://127.0.0.1:\(port)/metrics"))
        #expect(response.status == 404)
        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func metricsAnswerPrometheusTextWithTheBearerTokenOnly() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = SecureRandom.token(byteCount: 24)
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)],
            "metrics": ["enabled": true, "bearer_token_env": "FEDERATE_TEST_METRICS_TOKEN"],
            "api_bearer_provider": "dev",
            "providers": [["name": "dev", "type": "dev"]],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--config", config.path, "--port", String(port)],
            directory: directory.path, environment: ["FEDERATE_TEST_METRICS_TOKEN": token])
        let started = try #require(await serve.nextLine())
        #expect(started.contains("\"url\""))
        let origin = "http://127.0.0.1:\(port)"
        let http = AsyncHTTPClientTransport.shared
        try await Self.waitUntilReady(origin)

        // A refused bearer token on the API is counted by its code.
        let refused = try await http.send(HTTPRequest(url: origin + "/api/whoami", headers: [("Authorization", "Bearer not.a.token")]))
        #expect(refused.status == 401)

        let anonymous = try await http.send(HTTPRequest(url: origin + "/metrics"))
        #expect(anonymous.status == 401)
        #expect(anonymous.header("WWW-Authenticate") == "Bearer")
        let wrong = try await http.send(HTTPRequest(url: origin + "/metrics", headers: [("Authorization", "Bearer " + token + "x")]))
        #expect(wrong.status == 401)

        let answer = try await http.send(HTTPRequest(url: origin + "/metrics", headers: [("Authorization", "Bearer " + token)]))
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text.contains("# TYPE federate_key_set_fetches_total counter"), "\(text)")
        #expect(text.contains(#"outcome="ok""#), "\(text)")
        #expect(text.contains(#"federate_verifications_total{kind="id_token",outcome="malformed_token"} 1"#), "\(text)")
        #expect(!text.contains(token))

        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
    }

    @Test(arguments: [
        JSONValue.object(["enabled": true]),  // no token, not marked unprotected
        ["enabled": true, "bearer_token_env": "FEDERATE_TEST_UNSET_VARIABLE"],  // the variable is not set
        .string("on"),  // not an object
    ])
    func anUnprotectedOrUnreadableMetricsSettingIsRefused(metrics: JSONValue) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("accounts.sqlite")
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(store.path)], "metrics": metrics,
            "providers": [["name": "google", "type": "google", "client_id": "id.apps.googleusercontent.com"]],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, "serve", "--config", config.path, "--port", "0"], in: directory, timeout: 30)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        let printed = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(printed["error"]?.stringValue == "invalid_configuration", "\(output.stdout)")
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }
}
