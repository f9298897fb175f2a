import FederateTestSupport
import Foundation
import Testing

/// Every CLI example marked in Docs/*.md and Docs/Providers/*.md prints what the guide shows
/// (`scripts/check-cli-examples.py`: each run with the `federate` binary of this build, those
/// marked `dev-provider` against a dev provider the script starts).
@Suite struct CLIExampleTests {
    @Test(.timeLimit(.minutes(10)))
    func everyDocumentedCLIExamplePrintsWhatTheGuideShows() async throws {
        let result = await ExternalProcess.run(
            ["python3", "scripts/check-cli-examples.py", "--federate", CLIProcess.executablePath], in: DocSnippetTests.root, timeout: 540)
        let output = result.stdout + result.stderr
        #expect(!result.timedOut, "check-cli-examples.py did not finish within 540 s")
        #expect(result.status == 0, "CLI examples whose output drifted from the guide:\n\(output)")
        // Never vacuous: the guides' examples were found and run.
        let summary = output.split(separator: "\n").last.map(String.init) ?? ""
        let count = Int(summary.prefix(while: \.isNumber)) ?? 0
        #expect(count >= 4, "\(summary)")
        print(summary)
    }
}
