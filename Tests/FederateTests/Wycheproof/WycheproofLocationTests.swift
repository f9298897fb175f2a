import Foundation
import Testing

/// Where the Wycheproof suites look for their vectors, and when they skip: these run
/// everywhere, vectors or not.
@Suite("Wycheproof vector location")
struct WycheproofLocationTests {
    @Test func theVariableIsLookedAtFirstThenTheSharedCheckout() throws {
        let candidates = try Wycheproof.candidates(["FEDERATE_WYCHEPROOF_DIR": "/opt/vectors/wycheproof"])
        #expect(candidates.count == 2 && candidates.first?.path == "/opt/vectors/wycheproof")
        #expect(candidates.last?.path.hasSuffix("/shared/testvectors/wycheproof") == true)
        #expect(try Wycheproof.candidates([:]).count == 1)
        #expect(try Wycheproof.candidates(["FEDERATE_WYCHEPROOF_DIR": ""]).count == 1)
    }

    @Test func theFirstFolderThatExistsWins() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wycheproof-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = URL(fileURLWithPath: "/nonexistent/wycheproof-\(UUID().uuidString)")
        #expect(try Wycheproof.directory(in: [missing, folder]).path == folder.path)
        #expect(try Wycheproof.directory(in: [folder, missing]).path == folder.path)
    }

    @Test func noneFoundNamesEveryFolderAndSkipsOnlyOutsideCI() throws {
        let first = URL(fileURLWithPath: "/nonexistent/a"), second = URL(fileURLWithPath: "/nonexistent/b")
        #expect {
            try Wycheproof.directory(in: [first, second])
        } throws: { error in
            String(describing: error) == "Wycheproof vectors not found at /nonexistent/a or /nonexistent/b"
        }
        #expect(!Wycheproof.shouldRun([:], found: false))
        #expect(!Wycheproof.shouldRun(["CI": "false"], found: false))
        #expect(Wycheproof.shouldRun(["CI": "true"], found: false))
        #expect(Wycheproof.shouldRun(["CI": "TRUE"], found: false))
        #expect(Wycheproof.shouldRun([:], found: true))
        // The note says where to get them, and which files.
        let note = Wycheproof.skipNote.rawValue
        #expect(note.contains("https://github.com/C2SP/wycheproof") && note.contains("FEDERATE_WYCHEPROOF_DIR"))
        for file in Wycheproof.files { #expect(note.contains(file)) }
    }
}
