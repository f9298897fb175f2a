import FederateTestSupport
import Foundation
import Testing

/// Every Swift snippet in Docs/*.md and Docs/Providers/*.md typechecks against the modules this
/// test run was built with (`scripts/extract-doc-snippets.py`: one `swiftc -typecheck` per guide).
@Suite struct DocSnippetTests {
    /// The package's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The build folder holding `Modules/`: the test bundle's own folder, so a `--scratch-path`
    /// or release build checks against what it built.
    static func buildDirectory() throws -> URL {
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<3 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug")
    }

    @Test func everyDocSnippetTypechecks() async throws {
        // On threads of its own and with a deadline (ExternalProcess): never a cooperative thread blocked for the compile.
        let result = await ExternalProcess.run(
            ["python3", "scripts/extract-doc-snippets.py", "--build-dir", try Self.buildDirectory().path], in: Self.root, timeout: 900)
        let output = result.stdout + result.stderr
        #expect(!result.timedOut, "extract-doc-snippets.py did not finish within 900 s")
        // The diagnostics name the guide and line (`Docs/Login.md:42:7: error: ...`).
        #expect(result.status == 0, "doc snippets that do not compile:\n\(output)")
        print(output.split(separator: "\n").last.map(String.init) ?? "")
    }
}
