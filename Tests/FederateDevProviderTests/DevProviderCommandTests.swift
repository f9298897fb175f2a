import Federate
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty

/// `federate dev-provider`: the JSON line it prints, for every flavour, and its refusals.
@Suite("federate dev-provider")
struct DevProviderCommandTests {
    @Test(arguments: ["generic", "google", "apple", "firebase"])
    func printsAnIssuerThatServesDiscoveryAndALoginCommand(flavor: String) async throws {
        let process = try InteractiveCLI(["dev-provider", "--flavor", flavor])
        let line = try #require(await process.nextLine())
        defer { Task { await process.terminate() } }
        let printed = try JSONParser().parseObject(Array(line.utf8))
        let issuer = try #require(printed["issuer"]?.stringValue)
        #expect(printed["flavor"]?.stringValue == flavor)
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer)
        #expect(metadata.issuer == issuer)
        let login = try #require(printed["login"]?.stringValue)
        #expect(login.hasPrefix("federate login --no-browser --show-tokens --issuer \(issuer) --client-id "))
        if flavor == "apple" { #expect(login.contains("--client-secret=ey")) }  // an ES256 JWT
        if flavor == "generic" { #expect(login.contains("--client-secret=dev-secret")) }
    }

    @Test func unknownFlavourAndBadConfigurationAreErrors() async throws {
        let unknown = try await CLIProcess.run(["dev-provider", "--flavor", "okta"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.contains("\"invalid_configuration\""))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dev-\(UUID().uuidString).json")
        try Data(#"{"clients":[{"id":"c","faults":["no_such_fault"]}],"users":[{"sub":"u","email":"u@example.com"}]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try await CLIProcess.run(["dev-provider", "--config", file.path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("no_such_fault"))
    }

    /// `"requires_dpop_nonce": true` in the JSON file: the token endpoint demands a nonce it
    /// issued (`use_dpop_nonce`, RFC 9449 §8) before it answers a DPoP request; without it, not.
    @Test(.timeLimit(.minutes(2)), arguments: [true, false])
    func theJSONConfigurationTurnsDPoPNoncesOn(required: Bool) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dev-\(UUID().uuidString).json")
        let configuration: JSONValue = [
            "auto_approve": "alice", "requires_dpop_nonce": .bool(required),
            "clients": [["id": "dev-public", "redirect_uris": ["http://127.0.0.1/*"]]],
            "users": [["sub": "alice", "email": "alice@example.com"]],
        ]
        try Data(JSONSerializer.bytes(configuration)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = try InteractiveCLI(["dev-provider", "--config", file.path])
        defer { Task { await process.terminate() } }
        let line = try #require(await process.nextLine())
        let issuer = try #require(try JSONParser().parseObject(Array(line.utf8))["issuer"]?.stringValue)
        let signer = DPoPProofSigner()
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer)
        let client = try OpenIDClient(
            metadata: metadata, clientID: "dev-public", authentication: .none, httpClient: PatientTransport.shared
        )
        .withDPoP(signer)
        let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback")
        let tokens = try await client.finish(try await DevProviderTests.authorize(built.url), pending: built.pending).tokens
        #expect(tokens.isDPoPBound)
        #expect((signer.nonce(for: issuer + "/token") != nil) == required)
    }

    @Test func aDPoPNonceSettingThatIsNotABooleanIsRefused() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dev-\(UUID().uuidString).json")
        try Data(#"{"requires_dpop_nonce":"yes","clients":[{"id":"c"}],"users":[{"sub":"u","email":"u@example.com"}]}"#.utf8).write(
            to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let bad = try await CLIProcess.run(["dev-provider", "--config", file.path])
        #expect(
            bad.status == 1 && bad.stdout.contains("\"invalid_configuration\"") && bad.stdout.contains("requires_dpop_nonce"),
            "\(bad.stdout)")
    }
}
