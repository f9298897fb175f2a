import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate serve` in a real browser: Debian's headless Chromium, driven by selenium
/// (`Tests/Interop/browser_e2e.py`), goes through every state of the demo page — signed out
/// (providers by name), Cancel at the dev provider (a plain-words message), signed in with one
/// provider (no raw uid, no Unlink on it, "Link another" offering only unlinked providers),
/// an error in plain words (account exists), linking Google, Apple and GitHub (OAuth 2.0, no ID
/// token), signing out at the dev provider (RP-initiated logout) and coming back signed out, the
/// same account through GitHub, then through Google, the re-sign-in prompt before deleting and its "click Delete again", and deletion.
/// Screenshots of each state go to `Tests/Artifacts/screenshots` (those in Docs/Server.md
/// are copied from there). Needs chromium and chromium-driver (`.ci/run` installs them):
/// missing, the test fails.
@Suite("Browser: federate serve in headless Chromium", .serialized)
struct BrowserEndToEndTests {
    /// Runs the selenium script `script` (under Tests/Interop) against `federate serve` on a free
    /// port, with `arguments` after the common ones; its JSON verdict, or the reason it gave none.
    /// Needs chromium and chromium-driver (`.ci/run` installs them): missing, the test fails.
    static func runBrowserScript(_ script: String, _ arguments: [String] = []) async throws -> (result: [String: JSONValue], output: String)
    {
        let root = try ExternalProcess.packageRoot()
        for tool in ["chromium", "chromedriver"] {
            let found = await ExternalProcess.run(["sh", "-c", "command -v \(tool)"], in: root, timeout: 30)
            try #require(found.status == 0, "\(tool) is missing: apt-get install chromium chromium-driver")
        }
        let python = try await InteropPython.prepare(root: root)
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/" + script, "--federate", CLIProcess.executablePath, "--port", String(try FreePort.loopback())]
                + arguments,
            in: root, timeout: 300)
        try #require(!run.timedOut, "the browser test timed out")
        return (try JSONParser().parseObject(Array(run.stdout.utf8)), run.stdout + "\n" + ExternalProcess.tail(run.stderr))
    }

    /// Expects each screenshot of `names` in Tests/Artifacts/screenshots.
    static func expectScreenshots(_ names: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let root = try ExternalProcess.packageRoot()
        for name in names {
            #expect(
                FileManager.default.fileExists(atPath: root.appendingPathComponent("Tests/Artifacts/screenshots/\(name).png").path),
                "\(name).png", sourceLocation: sourceLocation)
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func demoPageStatesFromSignInToDeletion() async throws {
        let (result, output) = try await Self.runBrowserScript("browser_e2e.py", ["--screenshots", "Tests/Artifacts/screenshots"])
        #expect(result["ok"] == true, "\(output)")
        #expect(result["steps"]?.arrayValue?.count == 12)
        try Self.expectScreenshots([
            "1-signed-out", "dev-provider-picker", "1b-cancelled", "2-signed-in", "2b-account-exists", "3-linked",
            "3b-signed-out-at-provider",
            "4-requires-recent-login", "4b-signed-in-again", "5-deleted",
        ])
    }

    /// A page on another site (`Tests/Interop/browser_cross_site.py`: `localhost` while the app
    /// is `127.0.0.1`) sends the signed-in browser to the link and reauthenticate starts, with a
    /// Referer and without one (`no-referrer`): each is refused with `csrf_failed`, nothing
    /// starts, the session and the providers stay as they were; from the app's own page the
    /// same reauthentication reaches the provider.
    @Test(.timeLimit(.minutes(10)))
    func aPageOnAnotherSiteStartsNothingForTheAccount() async throws {
        let (result, output) = try await Self.runBrowserScript("browser_cross_site.py")
        #expect(result["ok"] == true, "\(output)")
        #expect(result["steps"]?.arrayValue?.count == 7)
    }

    /// Passkeys (`Tests/Interop/browser_passkeys.py`, Chromium's virtual authenticator): a guest
    /// registers one and signs back in with it; Alice links one to her provider account, signs in
    /// with it, reauthenticates with it before `DELETE /me`, and her deleted account's passkey
    /// signs no one in.
    @Test(.timeLimit(.minutes(10)))
    func passkeysRegisterSignInLinkAndReauthenticate() async throws {
        let (result, output) = try await Self.runBrowserScript("browser_passkeys.py", ["--screenshots", "Tests/Artifacts/screenshots"])
        #expect(result["ok"] == true, "\(output)")
        #expect(result["steps"]?.arrayValue?.count == 6)
        try Self.expectScreenshots(["passkey-1-added", "passkey-2-signed-in", "passkey-3-reauthenticated", "passkey-4-deleted"])
    }

    /// Guests and merges (`Tests/Interop/browser_guest_merge.py`): a guest adds a note, links the
    /// dev provider and keeps both; a second guest adds a note, links the same identity, is told
    /// it has an account, signs in with it, and that account then holds both guests' notes.
    @Test(.timeLimit(.minutes(10)))
    func guestsLinkAndMergeIntoOneAccount() async throws {
        let (result, output) = try await Self.runBrowserScript("browser_guest_merge.py", ["--screenshots", "Tests/Artifacts/screenshots"])
        #expect(result["ok"] == true, "\(output)")
        #expect(result["steps"]?.arrayValue?.count == 5)
        try Self.expectScreenshots(["guest-1-note", "guest-1-linked", "guest-2-conflict", "guest-2-merged"])
    }
}
