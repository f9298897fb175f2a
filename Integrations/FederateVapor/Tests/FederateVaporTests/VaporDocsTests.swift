import Foundation
import Testing

/// Docs/Vapor.md compiles: its snippets typecheck against the modules this package built
/// (`scripts/extract-doc-snippets.py`, as FederateDocsTests does for the root's guides), and its
/// example app is, byte for byte, `Integrations/FederateVapor/Example`, which this package builds and
/// `VaporBrowserTests` runs in a browser.
@Suite("Vapor: Docs/Vapor.md")
struct VaporDocsTests {
    static let guide = "Docs/Vapor.md"

    /// The build folder holding `Modules/`: the test bundle's own (the root's `.build` with
    /// `--scratch-path .build`), so the snippets see Vapor and FederateVapor.
    static func buildDirectory() throws -> URL {
        let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<3 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Modules").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }

    @Test func everySnippetTypechecks() async throws {
        let result = try await runProcess(
            ["python3", "scripts/extract-doc-snippets.py", "--build-dir", try Self.buildDirectory().path, Self.guide], in: repositoryRoot,
            timeout: 900)
        #expect(!result.timedOut)
        #expect(result.status == 0, "Docs/Vapor.md snippets that do not compile:\n\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("snippets in 1 files typecheck"), "\(result.stdout)")
    }

    /// Each block marked `<!-- snippet: skip the example app, compiled as PATH -->` is PATH's text.
    @Test func theExampleAppIsTheOneThePackageBuilds() throws {
        let lines = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.guide), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var compared = 0
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard let range = line.range(of: "compiled as "), line.hasPrefix("<!-- snippet: skip") else { continue }
            let path = String(line[range.upperBound...].prefix { $0 != " " })
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty { index += 1 }
            #expect(index < lines.count && lines[index] == "```swift", "a swift block follows the marker for \(path)")
            index += 1
            var block: [String] = []
            while index < lines.count, lines[index] != "```" {
                block.append(lines[index])
                index += 1
            }
            let file = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
            #expect(block.joined(separator: "\n") + "\n" == file, "Docs/Vapor.md's copy of \(path) differs from the file")
            compared += 1
        }
        #expect(compared == 2, "the guide shows configure.swift and main.swift")
    }
}
