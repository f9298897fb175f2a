import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate verify --provider google|firebase|apple` with `--keys-url` pointing at local files.
@Suite("federate verify --provider")
struct ProviderVerifyCommandTests {
    static let now: Int64 = 1_800_000_000

    static func file(_ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString).json")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func verdict(_ arguments: [String]) async throws -> (status: Int32, json: [String: JSONValue]) {
        let output = try await CLIProcess.run(["verify"] + arguments + ["--at", String(now)])
        return (output.status, try JSONParser().parseObject(Array(output.stdout.utf8)))
    }

    @Test func google() async throws {
        let keys = try Self.file(TestIssuer.jwks(for: [Fixtures.rsa]))
        defer { try? FileManager.default.removeItem(at: keys) }
        let claims: [String: JSONValue] = [
            "iss": "accounts.google.com", "aud": "web-client", "sub": "1100", "iat": .integer(Self.now - 5),
            "exp": .integer(Self.now + 600),
        ]
        let good = try Fixtures.rsa.sign(claims: claims, algorithm: .rs256)
        let accepted = try await Self.verdict(["--provider", "google", "--audience", "web-client", "--keys-url", keys.path, good])
        #expect(accepted.status == 0)
        #expect(accepted.json["valid"] == true)

        var other = claims
        other["iss"] = "https://accounts.google.com/"
        let refused = try await Self.verdict([
            "--provider", "google", "--audience", "web-client", "--keys-url", keys.path,
            try Fixtures.rsa.sign(claims: other, algorithm: .rs256),
        ])
        #expect(refused.status == 1)
        #expect(refused.json["error"] == "issuer_mismatch")
    }

    @Test func firebaseWithAnX509Map() async throws {
        let map = try Self.file(JSONSerializer.string(["rsa-1": .string(try Fixtures.selfSignedCertificatePEM())]))
        defer { try? FileManager.default.removeItem(at: map) }
        let claims: [String: JSONValue] = [
            "iss": "https://securetoken.google.com/demo", "aud": "demo", "sub": "uid-1", "iat": .integer(Self.now - 5),
            "exp": .integer(Self.now + 600), "auth_time": .integer(Self.now - 60),
        ]
        let good = try Fixtures.rsa.sign(claims: claims, algorithm: .rs256)
        let accepted = try await Self.verdict(["--provider", "firebase", "--project-id", "demo", "--keys-url", map.path, good])
        #expect(accepted.status == 0, "\(accepted.json)")
        var expired = claims
        expired["exp"] = .integer(Self.now - 600)
        let refused = try await Self.verdict([
            "--provider", "firebase", "--project-id", "demo", "--keys-url", map.path,
            try Fixtures.rsa.sign(claims: expired, algorithm: .rs256),
        ])
        #expect(refused.json["error"] == "id_token_expired")
    }

    @Test func appleAndUsageErrors() async throws {
        let keys = try Self.file(TestIssuer.jwks(for: [Fixtures.rsa]))
        defer { try? FileManager.default.removeItem(at: keys) }
        let claims: [String: JSONValue] = [
            "iss": "https://appleid.apple.com", "aud": "com.example.web", "sub": "001.abc", "iat": .integer(Self.now - 5),
            "exp": .integer(Self.now + 600), "email_verified": "true",
        ]
        let accepted = try await Self.verdict([
            "--provider", "apple", "--audience", "com.example.web", "--keys-url", keys.path,
            try Fixtures.rsa.sign(claims: claims, algorithm: .rs256),
        ])
        #expect(accepted.status == 0)

        let both = try await CLIProcess.run(["verify", "--provider", "apple", "--jwks", keys.path, "--audience", "a", "t"])
        #expect(both.status == 64)
        let firebaseAudience = try await CLIProcess.run(["verify", "--provider", "firebase", "--audience", "a", "t"])
        #expect(firebaseAudience.status == 64)
    }
}
