import Federate
import FederateTestSupport
import Foundation
import Testing

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
}
