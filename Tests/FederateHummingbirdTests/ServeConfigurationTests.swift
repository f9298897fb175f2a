import Federate
import FederateTestSupport
import Foundation
import Testing

/// `federate serve --config` refuses a configuration it cannot honour before it opens the
/// store or listens, with `invalid_configuration`, instead of quietly serving less.
@Suite("federate serve configuration")
struct ServeConfigurationTests {
    /// `allow_private_endpoints`, the only way around the private-network rule, is checked at
    /// start: entries must be host names, addresses or CIDR networks, on an `oidc` provider.
    @Test(arguments: [
        (JSONValue.array(["10.0.0.0/99"]), "oidc", "not a network in CIDR notation"),
        (.array(["*.corp"]), "oidc", "is not a host name"),
        (.string("10.0.0.0/8"), "oidc", "is an array"),
        (.array(["10.0.0.0/8"]), "google", "is for oidc providers"),
    ])
    func privateEndpointAllowListIsCheckedAtStart(value: JSONValue, type: String, message: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("accounts.sqlite")
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(store.path)],
            "providers": [
                [
                    "name": "corp", "type": .string(type), "issuer": "https://sso.corp.example", "client_id": "rp",
                    "allow_private_endpoints": value,
                ]
            ],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, "serve", "--config", config.path, "--port", "0"], in: directory, timeout: 30)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        let printed = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(printed["error"]?.stringValue == "invalid_configuration", "\(output.stdout)")
        #expect(printed["message"]?.stringValue?.contains(message) == true, "\(output.stdout)")
    }

    @Test(arguments: [
        JSONValue.string("nowhere"),  // no such provider
        .integer(1),  // not a name
    ])
    func apiBearerProviderMustBeAProviderOfTheFile(value: JSONValue) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("accounts.sqlite")
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(store.path)],
            "api_bearer_provider": value,
            "providers": [["name": "google", "type": "google", "client_id": "id.apps.googleusercontent.com"]],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)

        // A configuration that is wrongly accepted would serve forever: the timeout ends it.
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, "serve", "--config", config.path, "--port", "0"], in: directory, timeout: 30)
        #expect(!output.timedOut)
        #expect(output.status == 1)
        let printed = try JSONParser().parseObject(Array(output.stdout.utf8))
        #expect(printed["error"]?.stringValue == "invalid_configuration", "\(output.stdout)")
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }
}
