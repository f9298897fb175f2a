import Federate
import FederateTestSupport
import Foundation
import Synchronization
import Testing

/// `federate login --device` (RFC 8628) against a device authorization endpoint nobody here
/// wrote: django-oauth-toolkit (PyPI), run by `Tests/Interop/dot_device.py` on loopback. DOT
/// serves the endpoint without advertising it in discovery, so the CLI is told with
/// `--device-authorization-endpoint`. The person's part is played by the script: it approves
/// (or denies) each grant through DOT's own login, code-entry and confirmation pages, once the
/// CLI has been answered `authorization_pending` at least once.
///
/// Needs the interop venv (`Tests/Interop/venv.sh`); a missing Python fails the test, never
/// skips it.
@Suite("Interop: django-oauth-toolkit device authorization", .serialized)
struct DOTDeviceGrantInteropTests {
    /// What one `federate login --device` printed, and how it ended.
    struct Run {
        let status: Int32
        let output: [String: JSONValue]
        let stderr: String

        /// The code the CLI told the person to enter.
        var userCode: String? {
            stderr.split(separator: "\n").first { $0.hasPrefix("and enter the code: ") }
                .map { String($0.dropFirst("and enter the code: ".count)) }
        }
    }

    /// The JSON lines `dot_device.py` printed so far.
    final class Reports: Sendable {
        let events = Mutex<[[String: JSONValue]]>([])

        /// How many grants the person has answered (approved or denied).
        var answers: Int {
            events.withLock { $0.filter { $0["event"] == "approved" || $0["event"] == "denied" }.count }
        }
    }

    static func login(_ arguments: [String]) async throws -> Run {
        let result = try await CLIProcess.run(["login", "--device", "--timeout", "120", "--show-tokens"] + arguments)
        let output = (try? JSONParser().parseObject(Array(result.stdout.utf8))) ?? [:]
        return Run(status: result.status, output: output, stderr: result.stderr)
    }

    @Test(.timeLimit(.minutes(20)))
    func deviceLoginAgainstDjangoOAuthToolkit() async throws {
        let root = try ExternalProcess.packageRoot()
        try #require(
            FileManager.default.isExecutableFile(atPath: CLIProcess.executablePath), "no federate binary at \(CLIProcess.executablePath)")
        let python = try await InteropPython.prepare(root: root)
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dot-device-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: runtime) }
        let port = try FreePort.loopback()
        let dot = try InteractiveCLI(
            executable: python, arguments: ["Tests/Interop/dot_device.py", "--port", String(port), "--runtime-dir", runtime.path],
            directory: root.path, environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let line = try #require(await dot.nextLine(), "dot_device.py printed nothing")
        // Everything DOT's side reports afterwards (the person's answers, the tokens it issued),
        // collected until the script is stopped.
        let reported = Reports()
        let reports = Task {
            while let line = await dot.nextLine() {
                if let event = try? JSONParser().parseObject(Array(line.utf8)) { reported.events.withLock { $0.append(event) } }
            }
        }
        let info = try JSONParser().parseObject(Array(line.utf8))
        let issuer = try #require(info["issuer"]?.stringValue)
        let endpoint = try #require(info["device_authorization_endpoint"]?.stringValue)
        let stock = try #require(info["clients"]?["stock"]?["client_id"]?.stringValue)
        let oidc = try #require(info["clients"]?["oidc"]?["client_id"]?.stringValue)
        let denied = try #require(info["clients"]?["denied"]?["client_id"]?.stringValue)
        let deniedSecret = try #require(info["clients"]?["denied"]?["client_secret"]?.stringValue)
        let subject = try #require(info["user"]?["sub"]?.stringValue)
        #expect(info["interval"] == 5)
        // runserver prints its banner on stderr only once it listens: poll until it answers.
        let deadline = ContinuousClock.now + .seconds(60)
        var metadata: ProviderMetadata?
        while ContinuousClock.now < deadline, metadata == nil {
            metadata = try? await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer)
            if metadata == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        // DOT does not advertise the endpoint: without the option there is nothing to call.
        #expect(try #require(metadata, "DOT did not answer discovery").deviceAuthorizationEndpoint == nil)
        let unnamed = try await Self.login(["--issuer", issuer, "--client-id", oidc])
        #expect(unnamed.status == 1 && unnamed.output["error"] == "endpoint_not_available", "\(unnamed)")

        // Three sign-ins at once, each answered by the person on DOT's pages.
        let named = ["--issuer", issuer, "--device-authorization-endpoint", endpoint]
        async let approvedRun = Self.login(named + ["--client-id", oidc])
        async let stockRun = Self.login(named + ["--client-id", stock])
        async let deniedRun = Self.login(named + ["--client-id", denied, "--client-secret", deniedSecret])
        let (approved, stockAnswer, refused) = try await (approvedRun, stockRun, deniedRun)
        // The script reports an answer just after giving it, and the CLI may hear it first: wait
        // for the three reports (or a while) before stopping the script.
        let answered = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < answered, reported.answers < 3 { try await Task.sleep(for: .milliseconds(100)) }
        await dot.terminate()
        await reports.value
        let events = reported.events.withLock { $0 }
        #expect(!events.contains { $0["event"] == "person_failed" }, "\(events)")
        func answer(for clientID: String) -> [String: JSONValue]? {
            events.first { ($0["event"] == "approved" || $0["event"] == "denied") && $0["client_id"]?.stringValue == clientID }
        }

        // Approved: the code and URI on standard error, polling until DOT's side approved, then
        // the verified ID token's claims, UserInfo and the tokens on standard output.
        #expect(approved.status == 0, "\(approved.stderr)\n\(approved.output)")
        #expect(
            approved.stderr.contains("To sign in, open this URL on any device:\n\(issuer)/device/\nand enter the code: "),
            "\(approved.stderr)")
        let approvedCode = try #require(approved.userCode, "no user code on standard error: \(approved.stderr)")
        #expect(approved.stderr.contains("Or open this URL, which carries the code:\n\(issuer)/device/?user_code=\(approvedCode)"))
        let approval = try #require(answer(for: oidc), "DOT's side never approved: \(events)")
        #expect(approval["event"] == "approved" && approval["status"] == "authorized" && approval["user"] == "alice")
        #expect(approval["user_code"]?.stringValue == approvedCode)
        #expect((approval["pending_polls"]?.int64Value ?? 0) >= 1, "the CLI was never answered authorization_pending: \(approval)")
        #expect(approved.output["claims"]?["sub"]?.stringValue == subject)
        #expect(approved.output["claims"]?["iss"]?.stringValue == issuer)
        #expect(approved.output["claims"]?["aud"]?.stringValue == oidc)
        #expect(approved.output["claims"]?["email"] == "alice@example.com")
        #expect(approved.output["userinfo"]?["preferred_username"] == "alice")
        #expect(approved.output["granted_scopes"] == ["openid", "email", "profile"])
        #expect(approved.output["tokens"]?["id_token"]?.stringValue?.isEmpty == false)
        #expect(approved.output["tokens"]?["refresh_token"]?.stringValue?.isEmpty == false)

        // Stock DOT approves, then answers the device grant without an ID token: Federate, an
        // OpenID relying party, refuses the answer with a typed error rather than print tokens.
        let stockApproval = try #require(answer(for: stock), "DOT's side never approved: \(events)")
        #expect(stockApproval["event"] == "approved" && stockApproval["user_code"]?.stringValue == stockAnswer.userCode)
        #expect(events.contains { $0["event"] == "tokens" && $0["client_id"]?.stringValue == stock && $0["id_token"] == false })
        #expect(stockAnswer.status == 1 && stockAnswer.output["error"] == "invalid_token_response", "\(stockAnswer)")

        // Denied (a confidential client this time): access_denied, exit 1, no tokens.
        let denial = try #require(answer(for: denied), "DOT's side never denied: \(events)")
        #expect(denial["event"] == "denied" && denial["status"] == "denied")
        #expect(denial["user_code"]?.stringValue == refused.userCode)
        #expect((denial["pending_polls"]?.int64Value ?? 0) >= 1)
        #expect(refused.status == 1 && refused.output["error"] == "access_denied", "\(refused)")
        #expect(!refused.output.keys.contains("tokens"))
    }

    /// The option's own rules, checked before anything is sent (the issuer does not exist).
    @Test func theEndpointOptionIsRefusedWithoutDeviceOrWhenUnsafe() async throws {
        let issuer = ["--issuer", "https://issuer.invalid", "--client-id", "c"]
        let withoutDevice = try await CLIProcess.run(
            ["login", "--device-authorization-endpoint", "https://issuer.invalid/device"] + issuer)
        #expect(withoutDevice.status == 64)
        #expect(withoutDevice.stderr.contains("--device-authorization-endpoint goes with --device"), "\(withoutDevice.stderr)")

        for (endpoint, code) in [
            ("http://device.example.com/device", "insecure_endpoint"), ("http://192.168.1.10/device", "private_address_refused"),
            ("device-authorization/", "invalid_url"),
        ] {
            let refused = try await CLIProcess.run(["login", "--device", "--device-authorization-endpoint", endpoint] + issuer)
            let output = try JSONParser().parseObject(Array(refused.stdout.utf8))
            #expect(refused.status == 1 && output["error"]?.stringValue == code, "\(endpoint): \(refused.stdout)")
        }
    }
}
