import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate serve` in a real browser: Debian's headless Chromium, driven by selenium
/// (`Tests/Interop/browser_e2e.py`), signs in with the generic dev provider, links the Google
/// and Apple flavours, signs out, signs in with Google to the same account, is sent to
/// reauthenticate before deleting, then deletes. Screenshots go to `Tests/Artifacts/screenshots`.
/// Needs chromium and chromium-driver (`.ci/run` installs them): missing, the test fails.
@Suite("Browser: federate serve in headless Chromium", .serialized)
struct BrowserEndToEndTests {
    @Test(.timeLimit(.minutes(10)))
    func personSignsInLinksReauthenticatesAndDeletes() async throws {
        let root = try ExternalProcess.packageRoot()
        for tool in ["chromium", "chromedriver"] {
            let found = await ExternalProcess.run(["sh", "-c", "command -v \(tool)"], in: root, timeout: 30)
            try #require(found.status == 0, "\(tool) is missing: apt-get install chromium chromium-driver")
        }
        let venv = await ExternalProcess.run(["bash", "Tests/Interop/venv.sh"], in: root, timeout: 900)
        try #require(venv.status == 0, "the Python environment could not be created: \(ExternalProcess.tail(venv.stderr))")
        let python = ProcessInfo.processInfo.environment["FEDERATE_INTEROP_VENV"].map { $0 + "/bin/python" } ?? ".venv-interop/bin/python"
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/browser_e2e.py", "--federate", CLIProcess.executablePath, "--port", String(try FreePort.loopback()),
             "--screenshots", "Tests/Artifacts/screenshots"],
            in: root, timeout: 300)
        try #require(!run.timedOut, "the browser test timed out")
        let result = try JSONParser().parseObject(Array(run.stdout.utf8))
        #expect(result["ok"] == true, "\(run.stdout)\n\(ExternalProcess.tail(run.stderr))")
        #expect(result["steps"]?.arrayValue?.count == 8)
        for name in ["1-signed-out", "2-signed-in", "2b-account-exists", "3-linked", "4-requires-recent-login", "5-deleted"] {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Tests/Artifacts/screenshots/\(name).png").path))
        }
    }
}
