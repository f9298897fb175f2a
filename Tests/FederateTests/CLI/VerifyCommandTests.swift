import Foundation
import FederateTestSupport
import Testing
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// The `federate verify` and `federate discover` contract, on the real binary.
@Suite struct VerifyCommandTests {
    /// Writes the fixtures' key set to a temporary JWKS file.
    private func jwksFile() throws -> String {
        let keys: [JSONValue] = [.object(Fixtures.rsa.publicJWK()!), .object(Fixtures.ec.publicJWK()!), .object(Fixtures.ed.publicJWK()!)]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("federate-jwks-\(UUID().uuidString).json").path
        try JSONSerializer.string(["keys": .array(keys)]).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func object(_ line: String) throws -> [String: JSONValue] {
        try JSONParser().parseObject(Array(line.utf8))
    }

    @Test func validTokenPrintsClaimsAndExitsZero() async throws {
        let result = try await CLIProcess.run([
            "verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID, Fixtures.token(["email": "a@b.c"]),
        ])
        #expect(result.status == 0)
        let json = try object(result.stdout)
        #expect(json["valid"] == true)
        #expect(json["claims"]?["email"] == "a@b.c")
    }

    @Test func aMisspeltOptionIsReportedAsUnknownBeforeAMissingOne() async throws {
        // With --audiance the audience is missing too; the misspelling is what the user must see.
        let result = try await CLIProcess.run(["verify", "--jwks", try jwksFile(), "--audiance", Fixtures.clientID, "token"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Unknown option '--audiance'"), "\(result.stderr)")
        #expect(!result.stderr.contains("--audience."))
    }

    @Test func invalidTokenPrintsCodeAndExitsOne() async throws {
        let expired = Fixtures.token(["exp": .integer(Int64(Fixtures.now) - 3600)])
        let result = try await CLIProcess.run(["verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID, expired])
        #expect(result.status == 1)
        let json = try object(result.stdout)
        #expect(json["valid"] == false && json["error"] == "token_expired" && json["message"]?.stringValue != nil)
    }

    @Test func atEvaluatesTimeClaimsAtThatInstant() async throws {
        let old = Fixtures.token(["iat": 1_600_000_000, "exp": 1_600_000_600])
        let result = try await CLIProcess.run([
            "verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID, "--at", "1600000100", old,
        ])
        #expect(result.status == 0)
    }

    @Test func optionsApplyTheirRules() async throws {
        let file = try jwksFile()
        let token = Fixtures.token(["nonce": "n1", "auth_time": .integer(Int64(Fixtures.now) - 1000)])
        let base = ["verify", "--jwks", file, "--audience", Fixtures.clientID]
        let cases: [([String], String?)] = [
            (["--expected-issuer", "https://other.example"], "issuer_mismatch"),
            (["--expected-issuer", Fixtures.issuer], nil),
            (["--nonce", "n2"], "nonce_mismatch"),
            (["--nonce", "n1"], nil),
            (["--max-age", "60"], "auth_too_old"),
            (["--alg", "ES256"], "disallowed_algorithm"),
        ]
        for (options, expected) in cases {
            let result = try await CLIProcess.run(base + options + [token])
            let json = try object(result.stdout)
            #expect(json["error"]?.stringValue == expected, "\(options)")
            #expect(result.status == (expected == nil ? 0 : 1))
        }
    }

    @Test func withoutAnExpectedIssuerEveryTokenGoesThroughTheSameRules() async throws {
        // One verifier for the run: any string `iss` passes, but it is required, and the
        // signature is checked before any claim.
        let withoutIssuer = Fixtures.token(["iss": .null])
        let otherSignature = try #require(Fixtures.token().split(separator: ".").last)
        let forged = withoutIssuer.split(separator: ".").dropLast().joined(separator: ".") + "." + otherSignature
        let tokens = [
            Fixtures.token(), Fixtures.token(["iss": "https://elsewhere.example"]), withoutIssuer, Fixtures.token(["iss": 7]), forged,
        ]
        let result = try await CLIProcess.run(
            ["verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID], stdin: tokens.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        let verdicts = try result.lines.map { try object($0)["error"]?.stringValue ?? "valid" }
        #expect(verdicts == ["valid", "valid", "missing_claim", "invalid_claim", "invalid_signature"])
    }

    @Test func standardInputGivesOneLinePerTokenInOrder() async throws {
        let tokens = [Fixtures.token(), "garbage", Fixtures.token(key: Fixtures.ec, algorithm: .es256), Fixtures.token(["aud": "x"])]
        let result = try await CLIProcess.run(
            ["verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID], stdin: tokens.joined(separator: "\n") + "\n")
        #expect(result.status == 0)
        let verdicts = try result.lines.map { try object($0)["error"]?.stringValue ?? "valid" }
        #expect(verdicts == ["valid", "malformed_token", "valid", "audience_mismatch"])
    }

    @Test func summaryCountsValidAndInvalid() async throws {
        let tokens = [Fixtures.token(), Fixtures.token(["aud": "x"]), Fixtures.token(key: Fixtures.ed, algorithm: .edDSA)]
        let result = try await CLIProcess.run(
            ["verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID, "--output", "summary"],
            stdin: tokens.joined(separator: "\n"))
        #expect(result.status == 0)
        #expect(result.stdout == "2 valid, 1 invalid\n")
    }

    @Test func answersAreFlushedLineByLine() async throws {
        let cli = try InteractiveCLI(["verify", "--jwks", try jwksFile(), "--audience", Fixtures.clientID])
        cli.send(Fixtures.token())
        let first = await cli.nextLine()
        #expect(try first.map { try object($0)["valid"] } == true)
        cli.send("not-a-token")
        let second = await cli.nextLine()
        #expect(try second.map { try object($0)["error"] } == "malformed_token")
        #expect(await cli.finish().status == 0)
    }

    @Test func usageErrorsAreRejected() async throws {
        let noAudience = try await CLIProcess.run(["verify", "--jwks", try jwksFile(), Fixtures.token()])
        #expect(noAudience.status != 0)
        let both = try await CLIProcess.run(["verify", "--jwks", "x", "--issuer", "https://a", "--audience", "c", "t"])
        #expect(both.status != 0)
        let missingFile = try await CLIProcess.run(["verify", "--jwks", "/nonexistent/jwks.json", "--audience", "c", "t"])
        #expect(missingFile.status == 1)
        #expect(try object(missingFile.stdout)["error"] == "invalid_key_set")
    }

    @Test func issuerModeDiscoversAndVerifies() async throws {
        let issuer = try await TestIssuer.start()
        let good = try issuer.idToken()
        let result = try await CLIProcess.run(["verify", "--issuer", issuer.issuer, "--audience", issuer.clientID, good])
        #expect(result.status == 0, "\(result.stdout)")
        let foreign = try issuer.idToken(claims: ["iss": "https://elsewhere.example"])
        let rejected = try await CLIProcess.run(["verify", "--issuer", issuer.issuer, "--audience", issuer.clientID, foreign])
        #expect(try object(rejected.stdout)["error"] == "issuer_mismatch")
        try await issuer.stop()
    }

    @Test func discoverPrintsTheValidatedDocument() async throws {
        let issuer = try await TestIssuer.start()
        let result = try await CLIProcess.run(["discover", issuer.issuer])
        #expect(result.status == 0)
        #expect(try object(result.stdout)["jwks_uri"]?.stringValue == issuer.jwksURL)
        issuer.discoveryIssuer = "https://impostor.example"
        let mismatch = try await CLIProcess.run(["discover", issuer.issuer])
        #expect(mismatch.status == 1)
        #expect(try object(mismatch.stdout)["error"] == "discovery_issuer_mismatch")
        try await issuer.stop()
    }
}
