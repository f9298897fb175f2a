import Foundation
import Testing
@testable import FederateTokens

/// Docs/ErrorCodes.md lists every error code that any module declares or emits (regenerate
/// it with `python3 scripts/gen-error-codes.py` after adding one).
@Suite("Error code documentation")
struct ErrorCodesDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift source of every module (Sources/ and Providers/).
    static func sources() throws -> [(path: String, text: String)] {
        var found: [(String, String)] = []
        for folder in ["Sources", "Providers"] {
            let base = root.appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                found.append((url.path, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return found
    }

    /// The quoted string that follows each occurrence of `marker` in `text`.
    static func literals(after marker: String, in text: String) -> [String] {
        text.components(separatedBy: marker).dropFirst().compactMap { rest in
            guard let close = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<close])
        }
    }

    @Test func everyDeclaredOrEmittedCodeIsDocumented() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("Docs/ErrorCodes.md"), encoding: .utf8)
        var codes: [(code: String, path: String)] = []
        for (path, text) in try Self.sources() {
            for line in text.split(separator: "\n") where line.contains("static let") && line.contains(": Self = \"") {
                codes += Self.literals(after: ": Self = \"", in: String(line)).map { ($0, path) }
            }
            // Codes written as literals where an error is made: each must be a documented code too.
            for marker in ["FederateError(\"", "code: \"", "Code(rawValue: \""] {
                codes += Self.literals(after: marker, in: text).map { ($0, path) }
            }
        }
        #expect(codes.count > 60)
        let modules = Set(codes.map { URL(fileURLWithPath: $0.path).deletingLastPathComponent().lastPathComponent })
        #expect(modules.isSuperset(of: ["Errors", "Google", "Core", "CLI"]), "\(modules)")  // Core: FederateServer, the server layer
        for (code, path) in codes {
            #expect(doc.contains("| `\(code)` |"), "Docs/ErrorCodes.md lacks \(code) (\(path))")
        }
        for required in ["session_required", "csrf_failed", "unknown_provider", "token_type_mismatch", "invalid_logout_token"] {
            #expect(doc.contains("| `\(required)` |"))
        }
    }
}
