import Crypto
import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// Two `federate serve` processes on one PostgreSQL database with one sealing key, as behind
/// a load balancer: a sign-in started on one finishes on the other, and two users linking the
/// same provider identity at the same moment, one through each instance, end with one link.
@Suite("Two federate serve instances on one PostgreSQL", .serialized)
struct MultiInstanceTests {
    /// A running `federate serve`.
    final class Instance: @unchecked Sendable {
        let process = Process()
        let port: Int
        var origin: String { "http://127.0.0.1:\(port)" }

        init(config: URL, port: Int, environment: [String: String]) throws {
            self.port = port
            process.executableURL = URL(fileURLWithPath: CLIProcess.executablePath)
            process.arguments = ["serve", "--config", config.path, "--port", String(port)]
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try ChildProcesses.start(process)
        }

        func waitUntilListening() async throws {
            for _ in 0..<1200 {  // up to a minute on a loaded machine
                if (try? await PatientTransport.shared.send(HTTPRequest(url: origin + "/"))) != nil { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("federate serve on \(port) did not start")
        }

        /// SIGTERM, and SIGKILL if it has not ended within 10 s: a test never waits for ever.
        func stop() {
            ChildProcesses.stop(process)
        }
    }

    /// Follows the flow from `start` on `instance` through the dev provider (choosing `user` on
    /// its picker page when it shows one) and returns the callback URL, not yet requested.
    static func callbackURL(_ browser: TestBrowser, start: String, user: String?) async throws -> String {
        var response = try await browser.send(start, headers: [("Sec-Fetch-Site", "same-origin")])
        var location = try #require(response.header("Location"))
        response = try await browser.send(location)
        if response.status == 200, let user {  // the picker: POST the request back with the chosen user
            var fields = HTMLForm.hiddenFields(String(decoding: response.body, as: UTF8.self))
            fields["user"] = user
            let authorize = String(location.prefix { $0 != "?" })
            response = try await browser.send(
                authorize, method: "POST", body: FormURLEncoding.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
        location = try #require(response.header("Location"), "\(String(decoding: response.body, as: UTF8.self))")
        return location
    }

    /// What the instances share: the test PostgreSQL's URL in `FEDERATE_TEST_DATABASE_URL` and a
    /// new sealing key in `FEDERATE_TEST_SEALING_KEY`.
    static func environment() async throws -> [String: String] {
        let endpoint = try await PostgresTestServer.endpoint()
        let password = endpoint.password.map { ":" + $0 } ?? ""
        return [
            "FEDERATE_TEST_DATABASE_URL":
                "postgres://\(endpoint.username)\(password)@\(endpoint.host):\(endpoint.port)/\(endpoint.database)",
            "FEDERATE_TEST_SEALING_KEY": Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString(),
        ]
    }

    /// The same request, sent to `instance` instead (what a load balancer does).
    static func onInstance(_ url: String, _ instance: Instance) -> String {
        guard let path = url.range(of: "/auth/") else { return url }
        return instance.origin + url[path.lowerBound...]
    }

    @Test(.timeLimit(.minutes(5)))
    func signInCrossesInstancesAndALinkRaceHasOneWinner() async throws {
        var people = DevProviderConfiguration.standard
        people.autoApproveSubject = nil  // the browser picks alice or bob
        people.clients = [DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: ["http://127.0.0.1/auth/dev/callback"])]
        var shared = DevProviderConfiguration.standard
        shared.users = [DevUser(subject: "shared-identity", email: "shared@example.org", name: "Shared Identity")]
        shared.autoApproveSubject = "shared-identity"
        shared.clients = [DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: ["http://127.0.0.1/auth/second/callback"])]
        let dev = try await DevProvider.start(configuration: people)
        let second = try await DevProvider.start(configuration: shared)
        defer {
            Task {
                try? await dev.stop()
                try? await second.stop()
            }
        }

        let schema = "serve_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("federate-serve-\(schema).json")
        let portA = try FreePort.loopback(), portB = try FreePort.loopback()
        try Data(
            JSONSerializer.bytes([
                "origin": .string("http://127.0.0.1:\(portA)"),  // the address users see: instance A stands for the load balancer
                "store": ["postgres_url_env": "FEDERATE_TEST_DATABASE_URL", "schema": .string(schema)],
                "sealing_key_env": "FEDERATE_TEST_SEALING_KEY",
                "api_bearer_provider": "dev",
                "providers": [
                    [
                        "name": "dev", "type": "oidc", "issuer": .string(dev.issuer), "client_id": "dev-client",
                        "client_secret_env": "FEDERATE_TEST_DEV_SECRET",
                    ],
                    [
                        "name": "second", "type": "oidc", "issuer": .string(second.issuer), "client_id": "dev-client",
                        "client_secret_env": "FEDERATE_TEST_DEV_SECRET",
                    ],
                ],
            ])
        ).write(to: config)
        defer { try? FileManager.default.removeItem(at: config) }
        let environment = try await Self.environment().merging(["FEDERATE_TEST_DEV_SECRET": "dev-secret"]) { _, new in new }
        let a = try Instance(config: config, port: portA, environment: environment)
        defer { a.stop() }
        try await a.waitUntilListening()  // A migrates first; B then finds the tables
        let b = try Instance(config: config, port: portB, environment: environment)
        defer { b.stop() }
        try await b.waitUntilListening()

        // Alice starts on A; the callback lands on B; both instances know her session.
        let alice = TestBrowser()
        let aliceCallback = try await Self.callbackURL(alice, start: a.origin + "/auth/dev/start", user: "alice")
        let finished = try await alice.send(Self.onInstance(aliceCallback, b))
        #expect(finished.status == 303, "\(String(decoding: finished.body, as: UTF8.self))")
        let onA = try JSONParser().parseObject(try await alice.send(a.origin + "/me").body)
        let onB = try JSONParser().parseObject(try await alice.send(b.origin + "/me").body)
        #expect(onA["uid"] != nil && onA["uid"] == onB["uid"])

        // Bob signs in on B.
        let bob = TestBrowser()
        _ = try await bob.send(Self.onInstance(try await Self.callbackURL(bob, start: b.origin + "/auth/dev/start", user: "bob"), b))
        #expect(try await bob.send(a.origin + "/me").status == 200)

        // Both link the one "second" identity at once: Alice through A, Bob through B.
        let aliceLink = try await Self.callbackURL(alice, start: a.origin + "/auth/second/start?intent=link", user: "shared-identity")
        let bobLink = try await Self.callbackURL(bob, start: b.origin + "/auth/second/start?intent=link", user: "shared-identity")
        async let aliceResult = alice.send(Self.onInstance(aliceLink, a))
        async let bobResult = bob.send(Self.onInstance(bobLink, b))
        let results = try await [aliceResult, bobResult]
        // Both go back to the app; the loser with the error's code in the URL.
        #expect(results.allSatisfy { $0.status == 303 }, "\(results.map(\.status))")
        let locations = results.compactMap { $0.header("Location") }
        #expect(locations.filter { !$0.contains("error=") }.count == 1, "\(locations)")
        #expect(locations.filter { $0.contains("error=credential_already_in_use") }.count == 1, "\(locations)")
        let linkedCounts = try await [alice, bob].asyncMap { browser in
            try JSONParser().parseObject(try await browser.send(a.origin + "/me").body)["providers"]?.arrayValue?.count ?? 0
        }
        #expect(linkedCounts.sorted() == [1, 2])

        // The API for apps takes the dev provider's ID tokens as bearer tokens, on either instance.
        let client = try OpenIDClient(
            metadata: try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: dev.issuer), clientID: "dev-client",
            authentication: .clientSecretBasic(secret: "dev-secret"), httpClient: PatientTransport.shared)
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/auth/dev/callback", loginHint: "alice")
        let redirect = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        let idToken = try #require(tokens.idToken)
        for instance in [a, b] {
            let whoami = try await PatientTransport.shared.send(
                HTTPRequest(
                    url: instance.origin + "/api/whoami", headers: [("Authorization", "Bearer " + idToken)]))
            #expect(whoami.status == 200)
            #expect(try JSONParser().parseObject(whoami.body)["sub"] == "alice")
        }
        let tampered = try await PatientTransport.shared.send(
            HTTPRequest(
                url: a.origin + "/api/whoami", headers: [("Authorization", "Bearer " + idToken + "x")]))
        #expect(tampered.status == 401)

        // A back-channel logout delivered to B ends Bob's session on A too, and the same token
        // replayed to A is refused: both instances share the store. Alice's session stands.
        let bobSession = try #require(dev.providerSessionID(for: "bob"))
        let logout = try dev.backChannelLogoutToken(clientID: "dev-client", subject: nil, sessionID: bobSession)
        #expect(try await dev.sendBackChannelLogout(logout, to: b.origin + "/auth/dev/backchannel-logout") == 200)
        // A answers from its revocation cache until it rereads the store's revocation epoch:
        // at most `revocationCheckInterval` (1 s) after the logout. Wait out that bound.
        var status = try await bob.send(a.origin + "/me").status
        for _ in 0..<30 where status != 401 {
            try await Task.sleep(for: .milliseconds(100))
            status = try await bob.send(a.origin + "/me").status
        }
        #expect(status == 401)
        #expect(try await dev.sendBackChannelLogout(logout, to: a.origin + "/auth/dev/backchannel-logout") == 400)
        #expect(try await alice.send(a.origin + "/me").status == 200)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
