import Foundation
import FederateTestSupport
import Testing

/// Federate's CLI against a real, third-party OpenID provider nobody here wrote:
/// django-oauth-toolkit, started on 127.0.0.1 by `Tests/Interop/run_interop.sh`, with a
/// scripted browser signing in through its login form. See `Tests/Interop/README.md`.
///
/// Needs `python3` with `venv` and `pip` and PyPI (first run builds `.venv-interop` in the
/// package root, which takes a minute or two). Missing Python fails the test: it never skips.
@Suite("Interop: django-oauth-toolkit")
struct DjangoOAuthToolkitInteropTests {
    /// Every scenario `run_interop.sh` must report, each with `"ok": true`.
    static let expectedScenarios = [
        "provider_selftest",
        "verify_id_token",
        "login_client_secret_basic",
        "login_client_secret_post",
        "login_public_client",
        "refresh",
        "revocation",
        "login_wrong_client_secret",
    ]

    /// Generous: the first run creates the venv and pip-installs Django and friends.
    static let harnessTimeout: TimeInterval = 900

    @Test("federate login/token against django-oauth-toolkit", .timeLimit(.minutes(20)))
    func federateAgainstDjangoOAuthToolkit() async throws {
        let root = try ExternalProcess.packageRoot()
        let binary = CLIProcess.executablePath
        try #require(FileManager.default.isExecutableFile(atPath: binary), "federate binary not found at \(binary)")

        // Fail (not skip) with a clear message when Python is missing.
        let python = await ExternalProcess.run(
            ["python3", "-c", "import sys, venv; assert sys.version_info >= (3, 10), sys.version"], in: root, timeout: 60)
        try #require(python.status == 0, "python3 (3.10+, with venv) is required for the interop tests: \(python.stderr)")

        let result = await ExternalProcess.run(["bash", "Tests/Interop/run_interop.sh", binary], in: root, timeout: Self.harnessTimeout)
        try #require(
            !result.timedOut, "run_interop.sh did not finish within \(Int(Self.harnessTimeout))s\n\(ExternalProcess.tail(result.stderr))")

        var seen: [String: Bool] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = object["scenario"] as? String
            else { continue }
            let ok = object["ok"] as? Bool ?? false
            seen[name] = ok
            #expect(ok, "interop scenario '\(name)' failed: \(line)")
        }
        for name in Self.expectedScenarios {
            #expect(seen[name] != nil, "interop scenario '\(name)' did not run")
        }
        #expect(result.status == 0, "run_interop.sh exited \(result.status)\n\(ExternalProcess.tail(result.stderr))")
    }
}
