import Foundation
import FederateTestSupport
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// The auditor's hostile-but-legal tokens (Tests/Vectors/hostile.json, signed by Python's
/// `cryptography`, not by Federate): extreme time claims, look-alike identifiers, tokens of
/// another kind, odd RSA sizes, keys without `kid`. Each is checked in process and through
/// `federate verify`, which must exit 0 or 1 with its JSON — never be ended by a signal.
@Suite struct HostileVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        let name: String
        let token: String
        let error: String?
        let claim: String?
        let options: [String]
        var description: String { name }
    }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Vectors/hostile.json")

    static func document() throws -> [String: JSONValue] {
        try JSONParser().parseObject(Array(try Data(contentsOf: file)))
    }

    static func vectors() throws -> [Vector] {
        try (document()["vectors"]?.arrayValue ?? []).map { entry in
            Vector(
                name: entry["name"]?.stringValue ?? "?", token: entry["token"]?.stringValue ?? "", error: entry["error"]?.stringValue,
                claim: entry["claim"]?.stringValue, options: (entry["options"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
    }

    static func maxAge(_ options: [String]) -> Double? {
        guard let index = options.firstIndex(of: "--max-age"), index + 1 < options.count else { return nil }
        return Double(options[index + 1])
    }

    @Test func thereAreVectorsOfEveryKind() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 30)
        #expect(vectors.contains { $0.error == "invalid_claim" } && vectors.contains { $0.error == "token_type_mismatch" })
        #expect(vectors.contains { $0.error == "audience_mismatch" } && vectors.contains { $0.error == nil })
    }

    @Test(arguments: try vectors())
    func inProcess(_ vector: Vector) async throws {
        let document = try Self.document()
        let keySet = try JSONWebKeySet(jwks: JSONSerializer.bytes(try #require(document["jwks"])))
        let policy = IDTokenPolicy(
            issuers: [try #require(document["issuer"]?.stringValue)], audiences: [try #require(document["audience"]?.stringValue)],
            allowedAlgorithms: JWSAlgorithm.asymmetric)
        let expectations = IDTokenExpectations(maxAge: Self.maxAge(vector.options).map { .seconds($0) })
        let at = FederateClock.fixed(at: Date(timeIntervalSince1970: try #require(document["at"]?.doubleValue)))
        do {
            _ = try await IDTokenVerifier(policy: policy, keys: keySet, clock: at).verify(vector.token, expecting: expectations)
            #expect(vector.error == nil, "accepted: \(vector.name)")
        } catch {
            #expect(error.code.rawValue == vector.error, "\(vector.name): \(error)")
            if let claim = vector.claim { #expect(error.message.contains("'\(claim)'"), "\(error.message)") }
        }
    }

    @Test func throughTheCommandLine() async throws {
        let document = try Self.document()
        let jwks = FileManager.default.temporaryDirectory.appendingPathComponent("federate-hostile-\(UUID().uuidString).json")
        try Data(JSONSerializer.bytes(try #require(document["jwks"]))).write(to: jwks)
        defer { try? FileManager.default.removeItem(at: jwks) }
        let base = [
            "verify", "--jwks", jwks.path, "--expected-issuer", try #require(document["issuer"]?.stringValue),
            "--audience", try #require(document["audience"]?.stringValue), "--at", String(try #require(document["at"]?.int64Value)),
        ]
        for vector in try Self.vectors() {
            let result = try await CLIProcess.run(base + vector.options + [vector.token])
            // 0 or 1 with a JSON line; a signal (SIGILL from a trap) would show as another status.
            #expect(result.status == (vector.error == nil ? 0 : 1), "\(vector.name): status \(result.status) \(result.stderr.prefix(300))")
            let json = try JSONParser().parseObject(Array(result.stdout.utf8))
            #expect(json["error"]?.stringValue == vector.error, "\(vector.name): \(result.stdout)")
        }
    }
}
