import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing

/// The dev provider checked by an independent implementation: the Python OpenID client
/// Authlib (`Tests/Interop/authlib_rp.py`) performs discovery, a code flow with PKCE,
/// ID-token validation and userinfo against it. Needs the interop virtualenv
/// (`Tests/Interop/venv.sh`, which this test runs: it is a no-op when the venv is current).
/// Missing Python fails the test; it never skips.
@Suite("Interop: Authlib against the dev provider", .serialized)
struct AuthlibInteropTests {
    static func authlib(_ arguments: [String], expectSuccess: Bool = true) async throws -> [String: JSONValue] {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let run = await ExternalProcess.run([python, "Tests/Interop/authlib_rp.py"] + arguments, in: root, timeout: 120)
        try #require(!run.timedOut, "authlib_rp.py timed out")
        let result = try JSONParser().parseObject(Array(run.stdout.utf8))
        #expect((run.status == 0) == expectSuccess, "\(run.stdout)\n\(ExternalProcess.tail(run.stderr))")
        return result
    }

    @Test(arguments: [("dev-client", "dev-secret"), ("dev-public", nil)] as [(String, String?)])
    func authlibSignsInWithPKCEAndValidatesTheIDToken(clientID: String, secret: String?) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        var arguments = ["--issuer", provider.issuer, "--client-id", clientID]
        if let secret { arguments += ["--client-secret", secret] }
        let result = try await Self.authlib(arguments)
        #expect(result["ok"] == true)
        #expect(result["claims"]?["sub"] == "alice")
        #expect(result["claims"]?["aud"] == .string(clientID))
        #expect(result["userinfo"]?["email"] == "alice@example.com")
    }

    /// The check can fail: Authlib refuses a token for another audience.
    @Test func authlibRefusesAFaultyToken() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.clients.append(
            DevClient(
                id: "faulty", secret: "faulty-secret", redirectURIs: DevProviderConfiguration.loopbackRedirects, faults: [.wrongAudience]))
        let provider = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await provider.stop() } }
        let result = try await Self.authlib(
            ["--issuer", provider.issuer, "--client-id", "faulty", "--client-secret", "faulty-secret"], expectSuccess: false)
        #expect(result["ok"] == false)
        // Authlib words it as a missing `azp` (its check for a foreign audience) or a bad `aud`.
        let error = result["error"]?.stringValue ?? ""
        #expect(error.contains("aud") || error.contains("azp"), "\(result)")
    }
}
