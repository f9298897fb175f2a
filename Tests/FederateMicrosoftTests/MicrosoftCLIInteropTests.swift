import Federate
import FederateTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `federate verify --provider microsoft` and a `microsoft` provider of `federate serve
/// --config`, against a loopback Entra stand-in nobody here wrote: `Tests/Interop/jose_issuer.py
/// entra` serves Entra's v2.0 discovery paths with the `{tenantid}` template and signs its ID
/// tokens with joserfc (PyPI). Needs the interop venv; missing Python fails the test.
@Suite("Interop: Microsoft tenants through the CLI and serve", .serialized)
struct MicrosoftCLIInteropTests {
    static let clientID = "6731de76-14a6-49ae-97bc-6eba6914391e"

    /// The running issuer, its host and its tokens.
    struct Issuer {
        let process: InteractiveCLI
        let host: String
        let tenants: [String: JSONValue]
        let tokens: [String: JSONValue]

        func token(_ name: String) -> String { tokens[name]?.stringValue ?? "" }
        func tenant(_ name: String) -> String { tenants[name]?.stringValue ?? "" }
    }

    static func startIssuer() async throws -> Issuer {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let port = try FreePort.loopback()
        let process = try InteractiveCLI(
            executable: python, arguments: ["Tests/Interop/jose_issuer.py", "entra", "--port", String(port), "--client-id", clientID],
            directory: root.path)
        let line = try #require(await process.nextLine(), "jose_issuer.py entra printed nothing")
        let info = try JSONParser().parseObject(Array(line.utf8))
        return Issuer(
            process: process, host: try #require(info["host"]?.stringValue), tenants: try #require(info["tenants"]?.objectValue),
            tokens: try #require(info["tokens"]?.objectValue))
    }

    /// `federate verify --provider microsoft` with `audience` options on `token`: the exit status and the error code, if any.
    static func verify(_ issuer: Issuer, _ options: [String], _ token: String) async throws -> (status: Int32, error: String?, tid: String?)
    {
        let output = try await CLIProcess.run(
            ["verify", "--provider", "microsoft", "--audience", clientID, "--authority-host", issuer.host] + options + [token])
        let json = try JSONParser().parseObject(Array(output.stdout.utf8))
        return (output.status, json["error"]?.stringValue, json["claims"]?["tid"]?.stringValue)
    }

    @Test(.timeLimit(.minutes(10)))
    func verifyAppliesTheTenantSettings() async throws {
        let issuer = try await Self.startIssuer()
        let contoso = issuer.tenant("contoso"), personal = issuer.tenant("personal")
        // One tenant.
        var verdict = try await Self.verify(issuer, ["--tenant", contoso], issuer.token("contoso"))
        #expect(verdict.status == 0 && verdict.tid == contoso, "\(verdict)")
        verdict = try await Self.verify(issuer, ["--tenant", contoso], issuer.token("fabrikam"))
        #expect(verdict.status == 1 && verdict.error == "tenant_not_allowed", "\(verdict)")
        verdict = try await Self.verify(issuer, ["--tenant", contoso], issuer.token("expired"))
        #expect(verdict.status == 1 && verdict.error == "token_expired", "\(verdict)")
        // A tenant allow-list at /organizations and at /common.
        verdict = try await Self.verify(issuer, ["--account-types", "organizations", "--allowed-tenant", contoso], issuer.token("contoso"))
        #expect(verdict.status == 0, "\(verdict)")
        verdict = try await Self.verify(
            issuer, ["--account-types", "organizations", "--allowed-tenant", contoso], issuer.token("fabrikam"))
        #expect(verdict.error == "tenant_not_allowed", "\(verdict)")
        verdict = try await Self.verify(
            issuer, ["--account-types", "common", "--allowed-tenant", contoso, "--allowed-tenant", personal], issuer.token("personal"))
        #expect(verdict.status == 0, "\(verdict)")
        // Any tenant, said explicitly: still never personal accounts at /organizations, and the iss must be the tid's.
        verdict = try await Self.verify(issuer, ["--account-types", "organizations", "--any-tenant"], issuer.token("fabrikam"))
        #expect(verdict.status == 0, "\(verdict)")
        verdict = try await Self.verify(issuer, ["--account-types", "organizations", "--any-tenant"], issuer.token("personal"))
        #expect(verdict.error == "tenant_not_allowed", "\(verdict)")
        for hostile in ["tid_mismatch", "template_left"] {
            verdict = try await Self.verify(issuer, ["--account-types", "common", "--any-tenant"], issuer.token(hostile))
            #expect(verdict.error == "issuer_mismatch", "\(hostile): \(verdict)")
        }
        verdict = try await Self.verify(issuer, ["--account-types", "common", "--any-tenant"], issuer.token("other_audience"))
        #expect(verdict.error == "audience_mismatch", "\(verdict)")
        verdict = try await Self.verify(issuer, ["--account-types", "consumers"], issuer.token("personal"))
        #expect(verdict.status == 0, "\(verdict)")
        verdict = try await Self.verify(issuer, ["--account-types", "consumers"], issuer.token("contoso"))
        #expect(verdict.status == 1, "\(verdict)")
        // Never any tenant by default: a multi-tenant audience must say which tenants.
        for options in [
            [], ["--account-types", "common"], ["--account-types", "organizations"], ["--tenant", contoso, "--any-tenant"],
            ["--account-types", "common", "--any-tenant", "--allowed-tenant", contoso], ["--account-types", "consumers", "--any-tenant"],
        ] {
            let usage = try await CLIProcess.run(
                ["verify", "--provider", "microsoft", "--audience", Self.clientID, "--authority-host", issuer.host] + options + [
                    issuer.token("contoso")
                ])
            #expect(usage.status == 64, "\(options): \(usage.stdout) \(usage.stderr)")
        }
        await issuer.process.terminate()
    }

    /// A `microsoft` provider in `serve --config`, its ID tokens taken by `GET /api/whoami`.
    @Test(.timeLimit(.minutes(10)))
    func serveTakesTheTenantsItIsConfiguredFor() async throws {
        let issuer = try await Self.startIssuer()
        let contoso = issuer.tenant("contoso")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-ms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let object: JSONValue = [
            "store": ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)],
            "api_bearer_provider": "ms",
            "providers": [
                [
                    "name": "ms", "type": "microsoft", "client_id": .string(Self.clientID), "account_types": "organizations",
                    "allowed_tenants": [.string(contoso)], "authority_host": .string(issuer.host),
                ]
            ],
        ]
        let config = directory.appendingPathComponent("serve.json")
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--config", config.path, "--port", String(port)],
            directory: directory.path)
        let line = try #require(await serve.nextLine())
        #expect(line.contains("\"ms\""), "\(line)")
        func whoami(_ token: String) async throws -> (Int, [String: JSONValue]) {
            let response = try await PatientTransport.shared.send(
                HTTPRequest(url: "http://127.0.0.1:\(port)/api/whoami", headers: [("Authorization", "Bearer " + token)]))
            return (response.status, (try? JSONParser().parseObject(response.body)) ?? [:])
        }
        var (status, body) = try await whoami(issuer.token("contoso"))
        #expect(status == 200 && body["provider"] == "microsoft.com" && body["kind"] == "id_token", "\(body)")
        (status, body) = try await whoami(issuer.token("fabrikam"))
        #expect(status == 401 && body["error"] == "tenant_not_allowed", "\(body)")
        (status, body) = try await whoami(issuer.token("personal"))
        #expect(status == 401 && body["error"] == "tenant_not_allowed", "\(body)")
        (status, body) = try await whoami(issuer.token("tid_mismatch"))
        #expect(status == 401, "\(body)")
        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
        await issuer.process.terminate()
    }
}
