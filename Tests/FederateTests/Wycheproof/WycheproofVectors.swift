import Foundation
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// Google's Wycheproof test vectors (https://github.com/C2SP/wycheproof), read at test time.
///
/// The vectors are never copied into this repository. They are looked for at
/// `FEDERATE_WYCHEPROOF_DIR` first, then in the shared checkout next to the package,
/// `<package root>/../shared/testvectors/wycheproof`. In a plain clone, where neither exists,
/// the suites that need them are skipped with a note saying where to get them (``skipNote``);
/// in CI (`CI=true`, as `.ci/run` sets) they are required, and a missing directory or file
/// fails them: a vector suite that silently runs nothing there proves nothing.
///
/// The files are parsed with Foundation's `JSONSerialization` (test code only), so the
/// production JSON parser is not also the judge of its own input.
enum Wycheproof {
    /// Why the vectors could not be loaded.
    enum LoadError: Error, CustomStringConvertible {
        case packageRootNotFound(startingAt: String)
        case missing(String)
        case malformed(file: String, reason: String)

        var description: String {
            switch self {
            case .packageRootNotFound(let path): "no Package.swift above \(path)"
            case .missing(let path): "Wycheproof vectors not found at \(path)"
            case .malformed(let file, let reason): "\(file): \(reason)"
            }
        }
    }

    /// The expected outcome of a vector.
    enum Expectation: String {
        /// Must be accepted.
        case valid
        /// Must be rejected.
        case invalid
        /// Either outcome is correct (e.g. a legacy but harmless encoding).
        case acceptable
    }

    /// One `*_test.json` file.
    struct File {
        let name: String
        /// The file's own `numberOfTests`, to check that every vector ran.
        let numberOfTests: Int
        let groups: [Group]
    }

    /// A `testGroups` entry: shared parameters (key, hash, ...) and its vectors.
    struct Group {
        let members: [String: Any]
        let vectors: [Vector]

        func string(_ name: String) -> String? { members[name] as? String }
        func int(_ name: String) -> Int? { members[name] as? Int }
        func object(_ name: String) -> [String: Any]? { members[name] as? [String: Any] }
    }

    /// One test vector.
    struct Vector {
        let tcId: Int
        let comment: String
        let expectation: Expectation
        let flags: Set<String>
        let members: [String: Any]

        func string(_ name: String) -> String? { members[name] as? String }

        /// How failures name the vector.
        var label: String { "tcId \(tcId) (\(comment.isEmpty ? "no comment" : comment))" }
    }

    /// The files the suites read, from the Wycheproof repository's `testvectors_v1/`.
    static let files = [
        "json_web_signature_test.json", "json_web_key_test.json", "rsa_signature_2048_sha256_test.json",
        "rsa_pss_2048_sha256_mgf1_32_test.json", "ecdsa_secp256r1_sha256_p1363_test.json", "ed25519_test.json",
    ]

    /// What a skipped suite says: where the vectors were looked for and where to get them.
    static let skipNote: Comment = """
        Wycheproof vectors not found at $FEDERATE_WYCHEPROOF_DIR or <package root>/../shared/testvectors/wycheproof: \
        get \(files.joined(separator: ", ")) from https://github.com/C2SP/wycheproof (testvectors_v1/) \
        and set FEDERATE_WYCHEPROOF_DIR to their folder. CI (CI=true) requires them.
        """

    /// Whether the suites run: when the vectors are there, and always in CI (`CI=true`), where
    /// missing vectors fail them instead of skipping them.
    static var shouldRun: Bool {
        let environment = ProcessInfo.processInfo.environment
        return shouldRun(environment, found: (try? directory(in: candidates(environment))) != nil)
    }

    /// ``shouldRun`` for `environment`, the vectors `found` or not.
    static func shouldRun(_ environment: [String: String], found: Bool) -> Bool {
        found || isRequired(environment)
    }

    /// Whether `environment` is CI's, where the vectors are required.
    static func isRequired(_ environment: [String: String]) -> Bool {
        environment["CI"]?.lowercased() == "true"
    }

    /// The folders looked in, in order: `FEDERATE_WYCHEPROOF_DIR` when set, then
    /// `<package root>/../shared/testvectors/wycheproof` (the package root found by walking up
    /// from this source file to the directory that holds `Package.swift`).
    static func candidates(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [URL] {
        var candidates: [URL] = []
        if let explicit = environment["FEDERATE_WYCHEPROOF_DIR"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit, isDirectory: true).standardizedFileURL)
        }
        let fileManager = FileManager.default
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !fileManager.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            let parent = root.deletingLastPathComponent()
            guard parent.path != root.path else { throw LoadError.packageRootNotFound(startingAt: #filePath) }
            root = parent
        }
        candidates.append(
            root.deletingLastPathComponent().appendingPathComponent("shared/testvectors/wycheproof", isDirectory: true).standardizedFileURL)
        return candidates
    }

    /// The first of ``candidates(_:)`` that is a directory.
    static func directory() throws -> URL {
        try directory(in: candidates())
    }

    /// The first of `candidates` that is a directory; `LoadError.missing` naming them all when none is.
    static func directory(in candidates: [URL]) throws -> URL {
        for directory in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue { return directory }
        }
        throw LoadError.missing(candidates.map(\.path).joined(separator: " or "))
    }

    /// Loads and structurally checks one vector file.
    static func load(_ name: String) throws -> File {
        let url = try directory().appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw LoadError.missing(url.path) }
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let root = root as? [String: Any],
            let numberOfTests = root["numberOfTests"] as? Int,
            let groups = root["testGroups"] as? [[String: Any]]
        else { throw LoadError.malformed(file: name, reason: "no numberOfTests or testGroups") }
        return File(name: name, numberOfTests: numberOfTests, groups: try groups.map { try group($0, file: name) })
    }

    private static func group(_ members: [String: Any], file: String) throws -> Group {
        guard let tests = members["tests"] as? [[String: Any]] else {
            throw LoadError.malformed(file: file, reason: "a group has no tests")
        }
        let vectors = try tests.map { test in
            guard let tcId = test["tcId"] as? Int,
                let result = test["result"] as? String,
                let expectation = Expectation(rawValue: result)
            else { throw LoadError.malformed(file: file, reason: "a vector lacks tcId or a known result") }
            return Vector(
                tcId: tcId, comment: test["comment"] as? String ?? "", expectation: expectation,
                flags: Set(test["flags"] as? [String] ?? []), members: test)
        }
        return Group(members: members, vectors: vectors)
    }

    /// Decodes a hex string (Wycheproof's encoding of messages, signatures and RSA parameters).
    static func bytes(hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { throw LoadError.malformed(file: "-", reason: "odd-length hex") }
        return try stride(from: 0, to: digits.count, by: 2).map { i in
            guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else {
                throw LoadError.malformed(file: "-", reason: "not hex: \(hex.prefix(16))…")
            }
            return high << 4 | low
        }
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Serializes a `JSONSerialization` object (e.g. a JWK or JWKS) back to JSON bytes.
    static func jsonBytes(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// A `JSONSerialization` object as Federate's `JSONValue` members (what `JSONWebKey(jwk:)` takes).
    static func jsonMembers(_ object: [String: Any]) throws -> [String: JSONValue] {
        try JSONParser().parseObject(jsonBytes(object))
    }
}

/// Counts vectors by expected result, and what Federate did with the "acceptable" ones.
struct WycheproofTally: CustomStringConvertible {
    var valid = 0
    var invalid = 0
    var acceptableAccepted = 0
    var acceptableRejected = 0

    var acceptable: Int { acceptableAccepted + acceptableRejected }
    var total: Int { valid + invalid + acceptable }

    /// Records one vector and Federate's verdict on it.
    mutating func record(_ expectation: Wycheproof.Expectation, accepted: Bool) {
        switch expectation {
        case .valid: valid += 1
        case .invalid: invalid += 1
        case .acceptable: if accepted { acceptableAccepted += 1 } else { acceptableRejected += 1 }
        }
    }

    var description: String {
        "\(total) vectors: \(valid) valid, \(invalid) invalid, \(acceptable) acceptable "
            + "(\(acceptableAccepted) accepted, \(acceptableRejected) rejected)"
    }
}
