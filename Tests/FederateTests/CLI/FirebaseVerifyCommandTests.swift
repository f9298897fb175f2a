import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate verify --provider firebase-session` (Firebase session cookies) and
/// `--firebase-emulator HOST` (the Auth emulator's unsigned tokens, never on by default).
@Suite("federate verify: Firebase session cookies and the Auth emulator", .serialized)
struct FirebaseVerifyCommandTests {
    static let now: Int64 = 1_800_000_000

    static func claims(_ base: String, project: String = "demo") -> [String: JSONValue] {
        [
            "iss": .string(base + project), "aud": .string(project), "sub": "uid-1", "iat": .integer(now - 5), "exp": .integer(now + 600),
            "auth_time": .integer(now - 60),
        ]
    }

    /// `alg: none`, an empty signature: what the Auth emulator issues.
    static func unsigned(_ claims: [String: JSONValue]) -> String {
        Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(JSONSerializer.bytes(.object(claims))) + "."
    }

    static func verify(
        _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> (status: Int32, json: [String: JSONValue]) {
        let output = try await CLIProcess.run(["verify"] + arguments + ["--at", String(now)], environment: environment)
        return (output.status, (try? JSONParser().parseObject(Array(output.stdout.utf8))) ?? [:])
    }

    @Test func sessionCookiesHaveTheirOwnIssuer() async throws {
        let map = try ProviderVerifyCommandTests.file(JSONSerializer.string(["rsa-1": .string(try Fixtures.selfSignedCertificatePEM())]))
        defer { try? FileManager.default.removeItem(at: map) }
        let session = Self.claims("https://session.firebase.google.com/")
        let cookie = try Fixtures.rsa.sign(claims: session, algorithm: .rs256)
        let options = ["--provider", "firebase-session", "--project-id", "demo", "--keys-url", map.path]
        var verdict = try await Self.verify(options + [cookie])
        #expect(verdict.status == 0 && verdict.json["claims"]?["iss"] == "https://session.firebase.google.com/demo", "\(verdict.json)")
        // An ID token is not a session cookie, nor a session cookie an ID token.
        let idToken = try Fixtures.rsa.sign(claims: Self.claims("https://securetoken.google.com/"), algorithm: .rs256)
        verdict = try await Self.verify(options + [idToken])
        #expect(verdict.status == 1 && verdict.json["error"] == "issuer_mismatch", "\(verdict.json)")
        verdict = try await Self.verify(["--provider", "firebase", "--project-id", "demo", "--keys-url", map.path, cookie])
        #expect(verdict.status == 1 && verdict.json["error"] == "issuer_mismatch", "\(verdict.json)")
        var expired = session
        expired["exp"] = .integer(Self.now - 60)
        verdict = try await Self.verify(options + [try Fixtures.rsa.sign(claims: expired, algorithm: .rs256)])
        #expect(verdict.json["error"] == "session_cookie_expired", "\(verdict.json)")
        // Unsigned: refused unless the emulator is named.
        verdict = try await Self.verify(options + [Self.unsigned(session)])
        #expect(verdict.status == 1 && verdict.json["valid"] == false, "\(verdict.json)")
    }

    /// The emulator only when named on the command line: its unsigned tokens pass with their
    /// claims still checked, signed ones are refused; `FIREBASE_AUTH_EMULATOR_HOST` alone changes nothing.
    @Test(arguments: ["firebase", "firebase-session"])
    func theEmulatorIsOnlyEverExplicit(provider: String) async throws {
        let map = try ProviderVerifyCommandTests.file(JSONSerializer.string(["rsa-1": .string(try Fixtures.selfSignedCertificatePEM())]))
        defer { try? FileManager.default.removeItem(at: map) }
        let base = provider == "firebase" ? "https://securetoken.google.com/" : "https://session.firebase.google.com/"
        let token = Self.unsigned(Self.claims(base))
        let options = ["--provider", provider, "--project-id", "demo", "--keys-url", map.path]
        for host in ["127.0.0.1:9099", "[::1]:9099", "localhost:9099"] {
            let verdict = try await Self.verify(options + ["--firebase-emulator", host, token])
            #expect(verdict.status == 0 && verdict.json["claims"]?["sub"] == "uid-1", "\(host): \(verdict.json)")
        }
        let signed = try Fixtures.rsa.sign(claims: Self.claims(base), algorithm: .rs256)
        var verdict = try await Self.verify(options + ["--firebase-emulator", "127.0.0.1:9099", signed])
        #expect(verdict.status == 1 && verdict.json["error"] == "disallowed_algorithm", "\(verdict.json)")
        verdict = try await Self.verify(
            options + ["--firebase-emulator", "127.0.0.1:9099", Self.unsigned(Self.claims(base, project: "other"))])
        #expect(verdict.status == 1, "\(verdict.json)")
        var environment = ProcessInfo.processInfo.environment
        environment["FIREBASE_AUTH_EMULATOR_HOST"] = "127.0.0.1:9099"
        verdict = try await Self.verify(options + [token], environment: environment)
        #expect(verdict.status == 1 && verdict.json["valid"] == false, "the environment turned emulator mode on: \(verdict.json)")
        verdict = try await Self.verify(options + [signed], environment: environment)
        #expect(verdict.status == 0, "\(verdict.json)")
    }

    @Test func emulatorAndSessionUsageErrors() async throws {
        for arguments in [
            ["--provider", "firebase", "--project-id", "demo", "--firebase-emulator", "emulator.example:9099", "t"],
            ["--provider", "firebase", "--project-id", "demo", "--firebase-emulator", "10.0.0.5:9099", "t"],
            ["--provider", "firebase", "--project-id", "demo", "--firebase-emulator", "http://127.0.0.1:9099", "t"],
            ["--provider", "google", "--audience", "a", "--firebase-emulator", "127.0.0.1:9099", "t"],
            ["--jwks", "keys.json", "--audience", "a", "--firebase-emulator", "127.0.0.1:9099", "t"],
            ["--provider", "firebase-session", "--audience", "a", "t"],
            ["--provider", "google", "--audience", "a", "--project-id", "demo", "t"],
        ] {
            let output = try await CLIProcess.run(["verify"] + arguments)
            #expect(output.status == 64, "\(arguments): \(output.stdout) \(output.stderr)")
        }
    }

    /// Cookies signed by joserfc (PyPI) with a certificate in a `{kid: PEM}` map, the format of
    /// Google's session-cookie key URL (`Tests/Interop/jose_issuer.py firebase`).
    @Test(.timeLimit(.minutes(10)))
    func sessionCookiesSignedByJoserfc() async throws {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("federate-session-keys-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: keys) }
        let run = await ExternalProcess.run(
            [python, "Tests/Interop/jose_issuer.py", "firebase", "--project", "py-project", "--keys-file", keys.path], in: root,
            timeout: 120)
        try #require(run.status == 0, "jose_issuer.py firebase failed: \(ExternalProcess.tail(run.stderr))")
        let tokens = try #require(try JSONParser().parseObject(Array(run.stdout.utf8))["tokens"])
        func verdict(_ name: String, _ extra: [String] = []) async throws -> (Int32, String?) {
            let output = try await CLIProcess.run(
                ["verify", "--provider", "firebase-session", "--project-id", "py-project", "--keys-url", keys.path] + extra
                    + [tokens[name]?.stringValue ?? ""])
            return (output.status, (try? JSONParser().parseObject(Array(output.stdout.utf8)))?["error"]?.stringValue)
        }
        var result = try await verdict("session_cookie")
        #expect(result.0 == 0, "\(result)")
        result = try await verdict("id_token")
        #expect(result.1 == "issuer_mismatch", "\(result)")
        result = try await verdict("other_project")
        #expect(result.1 == "audience_mismatch", "\(result)")
        result = try await verdict("expired")
        #expect(result.1 == "session_cookie_expired", "\(result)")
        result = try await verdict("emulator_session_cookie")
        #expect(result.0 == 1, "an unsigned cookie passed without the emulator: \(result)")
        result = try await verdict("emulator_session_cookie", ["--firebase-emulator", "127.0.0.1:9099"])
        #expect(result.0 == 0, "\(result)")
        result = try await verdict("session_cookie", ["--firebase-emulator", "127.0.0.1:9099"])
        #expect(result.1 == "disallowed_algorithm", "\(result)")
        result = try await verdict("emulator_id_token", ["--firebase-emulator", "127.0.0.1:9099"])
        #expect(result.1 == "issuer_mismatch", "\(result)")
    }
}
