import Crypto
import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// Two `federate serve` processes on one PostgreSQL keep one user's provider tokens: 200
/// concurrent `GET /me/provider-tokens/{name}` (``AccountService/accessToken(for:providerID:)``),
/// spread over both, after the access token went stale, make exactly one refresh — against the
/// dev provider, which rotates refresh tokens and revokes the whole family when a rotated-out
/// one comes back, and against django-oauth-toolkit with `REFRESH_TOKEN_REUSE_PROTECTION` (the
/// independent check: a second refresh with one refresh token would revoke the family, and the
/// next round would fail).
@Suite("Two federate serve instances refresh kept provider tokens once", .serialized)
struct ProviderTokenMultiInstanceTests {
    typealias Instance = MultiInstanceTests.Instance
    /// Access tokens live 70 s and are refreshed when less than 60 s are left: stale 10 s after each refresh.
    static let tokenSeconds = 70
    static let rounds = 2
    static let callers = 200

    /// Two instances with `provider` (a config entry named `name`), its tokens kept.
    static func withInstances<T>(
        provider: JSONValue, environment extra: [String: String], portA: Int, _ body: (Instance, Instance) async throws -> T
    ) async throws -> T {
        let endpoint = try await PostgresTestServer.endpoint()
        let schema = "tokens_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("federate-serve-\(schema).json")
        try Data(
            JSONSerializer.bytes([
                "origin": .string("http://127.0.0.1:\(portA)"),
                "store": ["postgres_url_env": "FEDERATE_TEST_DATABASE_URL", "schema": .string(schema)],
                "sealing_key_env": "FEDERATE_TEST_SEALING_KEY",
                "provider_token_keys_env": "FEDERATE_TEST_TOKEN_KEYS",
                "provider_token_route": true,
                "providers": [provider],
            ])
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let password = endpoint.password.map { ":" + $0 } ?? ""
        let key = { Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString() }
        let environment = [
            "FEDERATE_TEST_DATABASE_URL":
                "postgres://\(endpoint.username)\(password)@\(endpoint.host):\(endpoint.port)/\(endpoint.database)",
            "FEDERATE_TEST_SEALING_KEY": key(), "FEDERATE_TEST_TOKEN_KEYS": "k1:" + key(),
        ].merging(extra) { _, new in new }
        let a = try Instance(config: config, port: portA, environment: environment)
        defer { a.stop() }
        try await a.waitUntilListening()
        let b = try Instance(config: config, port: try FreePort.loopback(), environment: environment)
        defer { b.stop() }
        try await b.waitUntilListening()
        return try await body(a, b)
    }

    /// `callers` concurrent token requests, alternating between the instances: the tokens they got.
    static func burst(_ browser: TestBrowser, _ a: Instance, _ b: Instance, name: String) async throws -> Set<String> {
        try await withThrowingTaskGroup(of: String.self) { group in
            for caller in 0..<callers {
                let instance = caller.isMultiple(of: 2) ? a : b
                group.addTask {
                    let response = try await browser.send(instance.origin + "/me/provider-tokens/" + name)
                    try #require(response.status == 200, "\(response.status): \(String(decoding: response.body, as: UTF8.self))")
                    return try #require(try JSONParser().parseObject(response.body)["access_token"]?.stringValue)
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func devProviderRotatingAndRevokingFamilies() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.tokenLifetime = .seconds(Self.tokenSeconds)
        configuration.clients = [
            DevClient(
                id: "dev-client", secret: "dev-secret", redirectURIs: ["http://127.0.0.1/auth/dev/callback"], faults: [.revokeFamilyOnReuse]
            )
        ]
        let dev = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await dev.stop() } }
        let provider: JSONValue = [
            "name": "dev", "type": "oidc", "issuer": .string(dev.issuer), "client_id": "dev-client",
            "client_secret_env": "FEDERATE_TEST_DEV_SECRET",
            "keep_tokens": true,
        ]
        try await Self.withInstances(
            provider: provider, environment: ["FEDERATE_TEST_DEV_SECRET": "dev-secret"], portA: try FreePort.loopback()
        ) { a, b in
            let alice = TestBrowser()
            let callback = try await MultiInstanceTests.callbackURL(alice, start: a.origin + "/auth/dev/start", user: nil)
            #expect(try await alice.send(MultiInstanceTests.onInstance(callback, b)).status == 303)
            // Fresh: from the store, nothing asked of the provider.
            var previous = try await Self.burst(alice, a, b, name: "dev")
            #expect(previous.count == 1 && dev.refreshStatistics.requests == 0)
            for round in 1...Self.rounds {
                try await Task.sleep(for: .seconds(11))
                let tokens = try await Self.burst(alice, a, b, name: "dev")
                let statistics = dev.refreshStatistics
                #expect(tokens.count == 1 && tokens != previous, "round \(round): one new token for every caller")
                #expect(statistics.requests == round && statistics.refreshes == round, "round \(round): \(statistics)")
                #expect(statistics.reusedRefreshTokens == 0 && statistics.familiesRevoked == 0, "\(statistics)")
                let userinfo = try await PatientTransport.shared.send(
                    HTTPRequest(
                        url: dev.baseURL + "/userinfo", headers: [("Authorization", "Bearer " + (tokens.first ?? ""))]))
                #expect(userinfo.status == 200)
                previous = tokens
            }
        }
    }

    @Test(.timeLimit(.minutes(8)))
    func djangoOAuthToolkitWithRefreshTokenReuseProtection() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dot-tokens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: runtime) }
        let portA = try FreePort.loopback(), dotPort = try FreePort.loopback()
        let dot = try InteractiveCLI(
            executable: python,
            arguments: [
                "Tests/Interop/dot_provider.py", "start", "--port", String(dotPort), "--runtime-dir", runtime.path, "--login-port", "9",
                "--redirect-uri", "http://127.0.0.1:\(portA)/auth/dot/callback", "--access-token-seconds", String(Self.tokenSeconds),
                "--refresh-reuse-protection",
            ],
            directory: root.path)
        let line = try #require(await dot.nextLine(), "dot_provider.py printed nothing")
        let info = try JSONParser().parseObject(Array(line.utf8))
        let issuer = try #require(info["issuer"]?.stringValue)
        let client = try #require(info["clients"]?["basic"])
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? await PatientTransport.shared.send(HTTPRequest(url: issuer + "/.well-known/openid-configuration")))?.status == 200 {
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let provider: JSONValue = [
            "name": "dot", "type": "oidc", "issuer": .string(issuer), "client_id": client["client_id"] ?? .null,
            "client_secret_env": "FEDERATE_TEST_DOT_SECRET", "keep_tokens": true,
        ]
        let secret = try #require(client["client_secret"]?.stringValue)
        try await Self.withInstances(provider: provider, environment: ["FEDERATE_TEST_DOT_SECRET": secret], portA: portA) { a, b in
            // Alice signs in at DOT's own login form.
            let alice = TestBrowser()
            var response = try await alice.send(a.origin + "/auth/dot/start")
            var location = try #require(response.header("Location"))
            for _ in 0..<8 {
                response = try await alice.send(location.hasPrefix("/") ? "http://127.0.0.1:\(dotPort)" + location : location)
                if response.status == 200, String(decoding: response.body, as: UTF8.self).contains("login-form") {
                    var fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
                    fields["username"] = "alice"
                    fields["password"] = "wonderland-Passw0rd"
                    response = try await alice.send(
                        "http://127.0.0.1:\(dotPort)/accounts/login/", method: "POST",
                        body: FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
                        headers: [("Referer", location)])
                }
                guard let next = response.header("Location") else { break }
                location = next
                if location.hasPrefix(a.origin) { break }
            }
            #expect(location.hasPrefix(a.origin + "/auth/dot/callback"), "\(location)")
            #expect(try await alice.send(location).status == 303)
            var previous = try await Self.burst(alice, a, b, name: "dot")
            #expect(previous.count == 1)
            for round in 1...Self.rounds {
                try await Task.sleep(for: .seconds(11))
                // Two refreshes with one refresh token would make DOT revoke the family: the
                // burst, or the next round, would then fail with provider_sign_in_required.
                let tokens = try await Self.burst(alice, a, b, name: "dot")
                #expect(tokens.count == 1 && tokens != previous, "round \(round)")
                let userinfo = try await PatientTransport.shared.send(
                    HTTPRequest(
                        url: issuer + "/userinfo/", headers: [("Authorization", "Bearer " + (tokens.first ?? ""))]))
                #expect(userinfo.status == 200, "round \(round): DOT accepts the new access token")
                previous = tokens
            }
            // DOT's own records: one refresh token per refresh plus the sign-in's, none revoked
            // by reuse (only the rotated-out ones, one per refresh).
            let count = await ExternalProcess.run(
                [
                    python, "-c",
                    "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                        + "print(c.execute('select count(*), sum(revoked is not null) from oauth2_provider_refreshtoken').fetchone())",
                    runtime.appendingPathComponent("db.sqlite3").path,
                ],
                in: root, timeout: 30)
            #expect(
                count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "(\(Self.rounds + 1), \(Self.rounds))",
                "\(count.stdout) \(count.stderr)")
        }
        await dot.terminate()
    }
}
