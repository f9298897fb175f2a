import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve` while another process holds its SQLite file's write lock: every request
/// that must write answers 503 with `Retry-After` and `store_unavailable` within about the
/// 2-second busy timeout (never a 401 that calls a good token bad), and everything works again
/// once the lock is released. A database from a newer release does not start.
@Suite("federate serve with its store locked", .serialized)
struct ServeStoreOutageTests {
    static let resource = "https://api.serve.test"

    @Test(.timeLimit(.minutes(3)))
    func aLockedStoreIs503NeverABadToken() async throws {
        var configuration = DevProviderConfiguration.standard(for: .generic)
        for index in configuration.clients.indices where !configuration.clients[index].redirectURIs.isEmpty {
            configuration.clients[index].redirectURIs = ["http://127.0.0.1/callback", "http://127.0.0.1/auth/corp/callback"]
        }
        let provider = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await provider.stop() } }
        let signer = DPoPProofSigner()
        let client = try await AccessTokenMiddlewareTests.client(provider).withDPoP(signer).withResources([Self.resource])
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback", scopes: ["openid", "orders:read"])
        let redirect = try await PatientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        let holder = AccessTokenHolder(client: client, tokens: tokens)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-outage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("accounts.sqlite").path
        let object: JSONValue = [
            "store": ["sqlite": .string(database)],
            "api_access_tokens": ["provider": "corp", "resource": .string(Self.resource), "method": "jwt", "dpop": true],
            "providers": [
                [
                    "name": "corp", "type": "oidc", "issuer": .string(provider.issuer), "client_id": "dev-client",
                    "client_secret_env": "CORP_SECRET",
                ]
            ],
        ]
        let config = directory.appendingPathComponent("serve.json")
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--config", config.path, "--port", String(port)],
            directory: directory.path, environment: ["CORP_SECRET": "dev-secret"])
        let line = try #require(await serve.nextLine())
        #expect(line.contains("\"url\""), "\(line)")
        let origin = "http://127.0.0.1:\(port)"

        func api() async throws -> Federate.HTTPResponse {
            try await PatientTransport.shared.send(try await holder.authorize(Federate.HTTPRequest(url: origin + "/api/whoami")))
        }
        func error(_ response: Federate.HTTPResponse) -> String? {
            (try? JSONParser().parseObject(response.body))?["error"]?.stringValue
        }
        func expectOutage(_ response: Federate.HTTPResponse, _ what: String, since start: ContinuousClock.Instant) {
            #expect(
                response.status == 503 && response.header("Retry-After") == "2" && error(response) == "store_unavailable",
                "\(what): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            // Bounded by the 2 s busy timeout (the default 10 s stalled every request).
            #expect(ContinuousClock.now - start < .seconds(6), "\(what) took \(ContinuousClock.now - start)")
        }

        // Before: a DPoP request and a signed-in browser both work.
        #expect(try await api().status == 200)
        let browser = TestBrowser()
        _ = try await browser.navigate(origin + "/auth/corp/start", origin: origin)
        #expect(try await browser.send(origin + "/me").status == 200)
        let logout = try provider.backChannelLogoutToken(clientID: "dev-client", subject: "alice")

        let lock = try await SQLiteLockHolder.lock(database)
        var start = ContinuousClock.now
        expectOutage(try await api(), "a DPoP request (its proof's replay check)", since: start)
        // A session is only read: WAL readers go on beside the other process's write lock.
        try await Task.sleep(for: .milliseconds(1100))  // past the session cache's one-second revocation check
        #expect(try await browser.send(origin + "/me").status == 200)
        start = ContinuousClock.now
        let delivery = try await PatientTransport.shared.send(
            Federate.HTTPRequest(
                method: "POST", url: origin + "/auth/corp/backchannel-logout",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(FormURLEncoding.encode([("logout_token", logout)]).utf8)))
        expectOutage(delivery, "a back-channel logout", since: start)
        start = ContinuousClock.now
        let signIn = TestBrowser()
        expectOutage(try await signIn.navigate(origin + "/auth/corp/start", origin: origin), "a sign-in's callback", since: start)
        await lock.release()

        // After: the same requests work again (a new proof each time; the logout token was never consumed).
        #expect(try await api().status == 200)
        #expect(try await browser.send(origin + "/me").status == 200)
        _ = try await signIn.navigate(origin + "/auth/corp/start", origin: origin)
        #expect(try await signIn.send(origin + "/me").status == 200)
        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
    }

    /// A database whose schema version this release does not know (999, no tables) stops
    /// `serve` with `store_schema_mismatch`, and is left as it was.
    @Test(.timeLimit(.minutes(2)))
    func aDatabaseFromANewerReleaseDoesNotStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("accounts.sqlite").path
        let create = await ExternalProcess.run(
            [
                "/usr/bin/env", "python3", "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE federate_schema (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)'); c.execute('INSERT INTO federate_schema VALUES (999, 0)'); c.commit()",
                database,
            ], in: directory, timeout: 30)
        #expect(create.status == 0, "\(create.stderr)")
        let config = directory.appendingPathComponent("serve.json")
        try Data(JSONSerializer.bytes(["store": ["sqlite": .string(database)], "providers": [["name": "dev", "type": "dev"]]])).write(
            to: config)
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, "serve", "--config", config.path, "--port", "0"], in: directory, timeout: 30)
        #expect(!output.timedOut && output.status == 1)
        let answer = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(answer["error"] == "store_schema_mismatch", "\(output.stdout)")
        #expect(answer["message"]?.stringValue?.contains("999") == true)
    }
}
