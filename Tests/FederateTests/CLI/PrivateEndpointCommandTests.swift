import Federate
import FederateTestSupport
import Foundation
import Testing

@testable import FederateCLI
@testable import FederateRelyingParty

/// The private-network rule through the tool: `discover`, `verify --issuer` and `doctor` refuse
/// a provider that is not on loopback when it names a loopback, link-local, private or
/// unspecified address, `--allow-private-endpoint` is the way around it, and `doctor` reports
/// it as a failure.
///
/// An HTTPS issuer on a non-loopback name cannot be served from this machine's loopback
/// (nothing here would trust its certificate, and no name but `localhost` resolves here), so
/// the process tests use `https://0.0.0.0:PORT`: an issuer that is not on loopback although a
/// connection to it lands on this machine. The doctor's own checks run in process on the
/// reported document, with a client that stands in for DNS.
@Suite("CLI: private endpoints")
struct PrivateEndpointCommandTests {
    static func errorCode(_ output: CLIProcess.Output) -> String? {
        (try? JSONParser().parseObject(Array(output.stdout.utf8)))?["error"]?.stringValue
    }

    @Test func discoverAndVerifyRefuseAPrivateIssuerBeforeConnecting() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let issuer = "https://0.0.0.0:\(server.port)"
        let discover = try await CLIProcess.run(["discover", issuer])
        #expect(discover.status == 1)
        #expect(Self.errorCode(discover) == "private_address_refused", "\(discover.stdout)")
        let verify = try await CLIProcess.run(["verify", "--issuer", issuer, "--audience", "app", "a.b.c"])
        #expect(verify.status == 1)
        #expect(Self.errorCode(verify) == "private_address_refused", "\(verify.stdout)")
        #expect(server.requestCount == 0)
        try await server.stop()
    }

    @Test func doctorReportsAPrivateIssuerAsAFailure() async throws {
        let output = try await CLIProcess.run(["doctor", "https://10.0.0.1", "--output", "json", "--timeout", "5"])
        let report = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(output.status == 1)
        let fetch = report["checks"]?.arrayValue?.first { $0["id"] == "discovery.fetch" }
        #expect(fetch?["status"] == "failure", "\(output.stdout)")
        #expect(fetch?["code"] == "private_address_refused")
        #expect(fetch?["federate"]?.stringValue?.contains("--allow-private-endpoint") == true)
    }

    @Test func theAllowListOptionIsCheckedAndApplied() async throws {
        for command in [
            ["discover", "https://op.example"], ["doctor", "https://op.example"],
            ["verify", "--issuer", "https://op.example", "--audience", "a", "x"],
        ] {
            let malformed = try await CLIProcess.run(command + ["--allow-private-endpoint", "10.0.0.0/99"])
            #expect(malformed.status == 64, "\(command[0]): \(malformed.stderr)")
            #expect(
                malformed.stderr.contains(
                    "--allow-private-endpoint: private-network allow-list entry '10.0.0.0/99' is not a network in CIDR notation"),
                "\(command[0]): \(malformed.stderr)")
        }
        // Allowed, the private issuer is contacted (and fails there: nothing speaks TLS on it).
        let server = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let allowed = try await CLIProcess.run(["discover", "https://0.0.0.0:\(server.port)", "--allow-private-endpoint", "0.0.0.0/8"])
        #expect(allowed.status == 1)
        #expect(Self.errorCode(allowed) == "discovery_failed", "\(allowed.stdout)")
        try await server.stop()
    }

    /// `token client-credentials` and `token exchange` take `--allow-private-endpoint` too:
    /// without it a private issuer or token endpoint is refused before anything is sent (the
    /// client secret included); with it, the server is contacted; a malformed entry is a usage error.
    @Test func theServiceGrantsTakeTheAllowList() async throws {
        let server = try await LoopbackHTTPServer.start { _ in .json("{}") }
        let common = ["--client-id", "svc", "--client-secret", "the-secret"]
        for (grant, extra) in [("client-credentials", [String]()), ("exchange", ["--subject-token", "t"])] {
            for target in [["--issuer", "https://0.0.0.0:\(server.port)"], ["--token-endpoint", "https://0.0.0.0:\(server.port)/token"]] {
                let refused = try await CLIProcess.run(["token", grant] + target + common + extra)
                #expect(
                    refused.status == 1 && Self.errorCode(refused) == "private_address_refused", "\(grant) \(target[0]): \(refused.stdout)")
                let allowed = try await CLIProcess.run(
                    ["token", grant] + target + common + extra + ["--allow-private-endpoint", "0.0.0.0/8"])
                // Contacted (and failing there: nothing speaks TLS on it).
                #expect(
                    allowed.status == 1 && Self.errorCode(allowed) != "private_address_refused", "\(grant) \(target[0]): \(allowed.stdout)")
            }
            let malformed = try await CLIProcess.run(
                ["token", grant, "--issuer", "https://op.example"] + common + extra + ["--allow-private-endpoint", "10.0.0.0/99"])
            #expect(malformed.status == 64, "\(grant): \(malformed.stderr)")
        }
        #expect(server.requestCount == 0, "TLS never completed, so no request was read")
        try await server.stop()
    }

    /// The reported document, through the doctor's checks: an HTTPS issuer on a non-loopback host
    /// whose key, token and userinfo endpoints are on loopback. Every one is named, as a failure,
    /// and nothing is sent there.
    @Test func doctorNamesEveryPrivateEndpointAsAFailure() async throws {
        let admin = try await LoopbackHTTPServer.start { _ in .json(#"{"keys":[]}"#) }
        let loopback = "http://127.0.0.1:\(admin.port)"
        let provider = try await LoopbackHTTPServer.start { _ in
            .json(
                JSONSerializer.string(
                    .object(
                        PrivateNetworkRuleTests.members([
                            "jwks_uri": .string(loopback + "/admin/keys?action=delete-everything"),
                            "token_endpoint": .string(loopback + "/token"),
                            "userinfo_endpoint": .string("https://[::ffff:7f00:1]/userinfo"),
                        ]))))
        }
        let http = NameMappingClient(names: ["op.example": (provider.baseURL, .anyAddress)])
        let report = await DoctorCommand.examine(
            issuer: PrivateNetworkRuleTests.issuer, clientID: nil, httpClient: http, timeout: .seconds(10))
        #expect(report.result == .failure)
        let checks = Dictionary(report.checks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(checks["discovery.document"]?.code == "private_address_refused")
        let named = checks["endpoints.private"]
        #expect(named?.status == .failure)
        for field in ["jwks_uri", "token_endpoint", "userinfo_endpoint"] {
            #expect(named?.message.contains(field) == true, "\(field): \(named?.message ?? "-")")
        }
        #expect(admin.requestCount == 0)
        // With the loopback network on the provider's allow-list the doctor goes on, over https
        // only: the plain-http endpoints stay refused.
        let allowed = await DoctorCommand.examine(
            issuer: PrivateNetworkRuleTests.issuer, clientID: nil, allowList: try PrivateNetworkAllowList(["127.0.0.0/8"]),
            httpClient: http,
            timeout: .seconds(10))
        #expect(allowed.checks.first { $0.id == "endpoints.tls" }?.status == .failure)
        #expect(allowed.checks.first { $0.id == "endpoints.private" } == nil)
        #expect(admin.requestCount == 0)
        try await admin.stop()
        try await provider.stop()
    }
}
