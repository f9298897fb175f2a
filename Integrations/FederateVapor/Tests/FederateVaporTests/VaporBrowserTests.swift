import FederateDevProvider
import FederateVapor
import Foundation
import Testing
import Vapor
import VaporExampleApp

/// Docs/Vapor.md's example app (`VaporExampleApp`, the same code) in a real browser: Debian's
/// headless Chromium, driven by selenium (`Tests/Interop/vapor_browser_e2e.py`), signs in
/// through a dev provider and links a second one. The app listens on loopback with two dev
/// providers in process; screenshots go to `Tests/Artifacts/screenshots`. Needs chromium and
/// chromium-driver (`.ci/run` installs them): missing, the test fails.
@Suite("Vapor: the example app in headless Chromium", .serialized)
struct VaporBrowserTests {
    @Test(.timeLimit(.minutes(10)))
    func signInThenLinkASecondProvider() async throws {
        for tool in ["chromium", "chromedriver"] {
            let found = try await runProcess(["sh", "-c", "command -v \(tool)"], in: repositoryRoot, timeout: 30)
            try #require(found.status == 0, "\(tool) is missing: apt-get install chromium chromium-driver")
        }
        let venv = try await runProcess(["bash", "Tests/Interop/venv.sh"], in: repositoryRoot, timeout: 900)
        try #require(venv.status == 0, "Tests/Interop/venv.sh failed: \(venv.stderr)")
        let python =
            ProcessInfo.processInfo.environment["FEDERATE_INTEROP_VENV"].map { $0 + "/bin/python" }
            ?? repositoryRoot.appendingPathComponent(".venv-interop/bin/python").path

        let dev = try await DevProvider.start()
        let corp = try await DevProvider.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-vapor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        var settings = ExampleSettings()
        settings.origin = "http://127.0.0.1:\(port)"
        settings.devIssuer = dev.issuer
        settings.corpIssuer = corp.issuer
        settings.databasePath = directory.appendingPathComponent("accounts.sqlite").path
        let app = try await Application.make(.testing)
        var run: (status: Int32, stdout: String, stderr: String, timedOut: Bool)?
        do {
            try await configure(app, settings: settings)
            try await app.asyncBoot()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            run = try await runProcess(
                [
                    python, "Tests/Interop/vapor_browser_e2e.py", "--url", settings.origin + "/", "--screenshots",
                    "Tests/Artifacts/screenshots",
                ],
                in: repositoryRoot, timeout: 300)
        } catch {
            Issue.record(error)
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
        try await dev.stop()
        try await corp.stop()
        try? FileManager.default.removeItem(at: directory)

        let result = try #require(run)
        try #require(!result.timedOut, "the browser test timed out")
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(answer?["ok"] as? Bool == true, "\(result.stdout)\n\(result.stderr.suffix(2000))")
        #expect((answer?["steps"] as? [Any])?.count == 3)
        for name in ["vapor-1-signed-out", "vapor-2-signed-in", "vapor-3-linked"] {
            #expect(
                FileManager.default.fileExists(
                    atPath: repositoryRoot.appendingPathComponent("Tests/Artifacts/screenshots/\(name).png").path))
        }
    }

    /// Passkeys through the Vapor integration (`Tests/Interop/vapor_browser_passkeys.py`):
    /// Chromium's virtual authenticator on the example app served at `http://localhost:PORT`
    /// with passkeys configured; Alice signs in with the dev provider, registers a passkey,
    /// signs out, signs back in with it, reauthenticates with it and deletes her account.
    @Test(.timeLimit(.minutes(10)))
    func passkeysRegisterSignInAndReauthenticate() async throws {
        for tool in ["chromium", "chromedriver"] {
            let found = try await runProcess(["sh", "-c", "command -v \(tool)"], in: repositoryRoot, timeout: 30)
            try #require(found.status == 0, "\(tool) is missing: apt-get install chromium chromium-driver")
        }
        let venv = try await runProcess(["bash", "Tests/Interop/venv.sh"], in: repositoryRoot, timeout: 900)
        try #require(venv.status == 0, "Tests/Interop/venv.sh failed: \(venv.stderr)")
        let python =
            ProcessInfo.processInfo.environment["FEDERATE_INTEROP_VENV"].map { $0 + "/bin/python" }
            ?? repositoryRoot.appendingPathComponent(".venv-interop/bin/python").path

        let port = try freeLoopbackPort()
        // A host name, not an IP address: browsers refuse an IP address as RP ID.
        let origin = "http://localhost:\(port)"
        var devConfiguration = DevProviderConfiguration.standard
        devConfiguration.clients = [DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: [origin + "/auth/dev/callback"])]
        let dev = try await DevProvider.start(configuration: devConfiguration)
        let corp = try await DevProvider.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-vapor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = ExampleSettings()
        settings.origin = origin
        settings.devIssuer = dev.issuer
        settings.corpIssuer = corp.issuer
        settings.databasePath = directory.appendingPathComponent("accounts.sqlite").path
        settings.passkeys = try WebAuthnConfiguration(relyingPartyID: "localhost", relyingPartyName: "Example", allowedOrigins: [origin])
        let app = try await Application.make(.testing)
        var run: (status: Int32, stdout: String, stderr: String, timedOut: Bool)?
        do {
            try await configure(app, settings: settings)
            try await app.asyncBoot()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            run = try await runProcess([python, "Tests/Interop/vapor_browser_passkeys.py", "--url", origin + "/"], in: repositoryRoot, timeout: 300)
        } catch {
            Issue.record(error)
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
        try await dev.stop()
        try await corp.stop()
        try? FileManager.default.removeItem(at: directory)

        let result = try #require(run)
        try #require(!result.timedOut, "the browser test timed out")
        let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(answer?["ok"] as? Bool == true, "\(result.stdout)\n\(result.stderr.suffix(2000))")
        #expect((answer?["steps"] as? [Any])?.count == 4)
    }
}
