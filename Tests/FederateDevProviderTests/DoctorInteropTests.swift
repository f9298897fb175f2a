import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate doctor` against an OpenID provider nobody here wrote: idpy-oidc (PyPI), run by
/// `Tests/Interop/idpy_provider.py` on loopback. Needs the interop venv (`Tests/Interop/venv.sh`,
/// which this test runs); a missing Python fails the test, never skips it.
@Suite("Doctor: interop with idpy-oidc", .serialized)
struct DoctorInteropTests {
    @Test(.timeLimit(.minutes(20)))
    func idpyPassesAndItsQuirksAreReported() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let port = try FreePort.loopback()
        let op = try InteractiveCLI(
            executable: python,
            arguments: [
                "Tests/Interop/idpy_provider.py", "--port", String(port), "--client-id", "federate-rp", "--client-secret", "idpy-secret",
                "--redirect-uri", "http://127.0.0.1:1/callback",
            ],
            directory: root.path)
        let ready = await op.nextLine()
        let issuer = "http://127.0.0.1:\(port)"
        try #require(ready == "READY " + issuer, "idpy_provider.py did not start: \(ready ?? "no output")")

        let output = try await CLIProcess.run(["doctor", issuer, "--client-id", "federate-rp", "--output", "json", "--timeout", "60"])
        await op.terminate()
        let run = DoctorFixture.Run(output: output, report: try JSONParser().parseObject(Array(output.stdout.utf8)))
        DoctorCommandTests.expectShape(run)
        #expect(output.status == 0, "\(output.stdout)")
        for id in [
            "discovery.fetch", "discovery.issuer", "discovery.document", "algorithms.accepted", "keys.fetch", "keys.usable",
            "keys.algorithms", "endpoints.pkce", "endpoints.response_types", "client.id", "client.policy",
        ] {
            #expect(run.status(id) == "ok", "\(id): \(run.check(id) ?? [:])")
        }
        // idpy publishes RS256 keys and advertises RS256.
        #expect(run.check("algorithms.accepted")?["details"]?["accepted"]?.arrayValue?.contains("RS256") == true)
        // Python's http.server sends a Date header: the clock was compared.
        #expect(run.status("clock.skew") == "ok", "\(run.check("clock.skew") ?? [:])")
        // idpy's token endpoint takes client secrets only: a client without one is flagged.
        #expect(run.status("client.authentication") == "warning")
    }
}
