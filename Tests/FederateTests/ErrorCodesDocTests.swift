import Foundation
import Testing

/// Docs/ErrorCodes.md lists every error code the core declares (regenerate it with
/// `python3 scripts/gen-error-codes.py` after adding one).
@Suite("Error code documentation")
struct ErrorCodesDocTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyDeclaredCodeIsDocumented() throws {
        let source = try String(contentsOf: Self.root.appendingPathComponent("Sources/Federate/Errors/FederateError.swift"), encoding: .utf8)
        let doc = try String(contentsOf: Self.root.appendingPathComponent("Docs/ErrorCodes.md"), encoding: .utf8)
        let declared = source.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("public static let"), let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close else {
                return nil
            }
            return String(line[line.index(after: open)..<close])
        }
        #expect(declared.count > 50)
        for code in declared {
            #expect(doc.contains("| `\(code)` |"), "Docs/ErrorCodes.md lacks \(code)")
        }
    }
}
