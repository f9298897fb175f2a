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
        let dev = try await DevProvider.start()
        let corp = try await DevProvider.start()
        let port = try freeLoopbackPort()
        var settings = ExampleSettings()
        settings.origin = "http://127.0.0.1:\(port)"
        let answer = try await Self.runInBrowser(
            "vapor_browser_e2e.py", ["--url", settings.origin + "/", "--screenshots", "Tests/Artifacts/screenshots"], settings: settings,
            port: port, dev: dev, corp: corp)
        #expect((answer["steps"] as? [Any])?.count == 3)
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
        let port = try freeLoopbackPort()
        // A host name, not an IP address: browsers refuse an IP address as RP ID.
        var settings = ExampleSettings()
        settings.origin = "http://localhost:\(port)"
        settings.passkeys = try WebAuthnConfiguration(
            relyingPartyID: "localhost", relyingPartyName: "Example", allowedOrigins: [settings.origin])
        var devConfiguration = DevProviderConfiguration.standard
        devConfiguration.clients = [
            DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: [settings.origin + "/auth/dev/callback"])
        ]
        let answer = try await Self.runInBrowser(
            "vapor_browser_passkeys.py", ["--url", settings.origin + "/"], settings: settings, port: port,
            dev: try await DevProvider.start(configuration: devConfiguration), corp: try await DevProvider.start())
        #expect((answer["steps"] as? [Any])?.count == 4)
    }

    /// Runs the example app with `settings` on `port` (its dev and corp providers `dev` and
    /// `corp`, its database in a temporary folder), then the selenium script `script` (under
    /// Tests/Interop) with `arguments`; stops it all and returns the script's JSON verdict,
    /// expected to be ok. Needs chromium and chromium-driver (`.ci/run` installs them): missing,
    /// the test fails.
    static func runInBrowser(
        _ script: String, _ arguments: [String], settings: ExampleSettings, port: Int, dev: DevProvider, corp: DevProvider
    ) async throws -> [String: Any] {
        for tool in ["chromium", "chromedriver"] {
            let found = try await runProcess(["sh", "-c", "command -v \(tool)"], in: repositoryRoot, timeout: 30)
            try #require(found.status == 0, "\(tool) is missing: apt-get install chromium chromium-driver")
        }
        let venv = try await runProcess(["bash", "Tests/Interop/venv.sh"], in: repositoryRoot, timeout: 900)
        try #require(venv.status == 0, "Tests/Interop/venv.sh failed: \(venv.stderr)")
        let python =
            ProcessInfo.processInfo.environment["FEDERATE_INTEROP_VENV"].map { $0 + "/bin/python" }
            ?? repositoryRoot.appendingPathComponent(".venv-interop/bin/python").path

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-vapor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = settings
        settings.devIssuer = dev.issuer
        settings.corpIssuer = corp.issuer
        settings.databasePath = directory.appendingPathComponent("accounts.sqlite").path
        let app = try await Application.make(.testing)
        var run: (status: Int32, stdout: String, stderr: String, timedOut: Bool)?
        do {
            try await configure(app, settings: settings)
            try await app.asyncBoot()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            run = try await runProcess([python, "Tests/Interop/" + script] + arguments, in: repositoryRoot, timeout: 300)
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
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(answer["ok"] as? Bool == true, "\(result.stdout)\n\(result.stderr.suffix(2000))")
        return answer
    }
}
