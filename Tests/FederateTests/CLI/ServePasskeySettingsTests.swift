import Federate
import Foundation
import Testing
@testable import FederateCLI

/// `federate serve`'s `"passkeys"`: on by default for a host-name origin, off for an IP address
/// in any spelling (browsers refuse one as RP ID), configured or turned off by the file, and a
/// bad value is `invalid_configuration`.
@Suite struct ServePasskeySettingsTests {
    static func settings(_ value: JSONValue?) throws(FederateError) -> PasskeySettings {
        var members: [String: JSONValue] = [:]
        if let value { members["passkeys"] = value }
        return try ServeConfiguration(json: JSONSerializer.bytes(.object(members)), environment: [:]).passkeys
    }

    @Test func onForAHostNameOriginWithItsHostAsRPID() throws {
        let configuration = try #require(try Self.settings(nil).configuration(origin: "http://localhost:8080"))
        #expect(configuration.relyingPartyID == "localhost" && configuration.allowedOrigins == ["http://localhost:8080"])
        #expect(configuration.userVerification == .preferred)
        let named = try #require(try Self.settings(true).configuration(origin: "https://app.example.com"))
        #expect(named.relyingPartyID == "app.example.com")
    }

    @Test(arguments: ["http://127.0.0.1:8080", "http://127.1:8080", "http://0x7f.0.0.1:8080", "http://[::1]:8080"])
    func offByDefaultForAnIPAddressOrigin(origin: String) throws {
        #expect(try Self.settings(nil).configuration(origin: origin) == nil)
        // Asked for explicitly, an IP origin cannot serve passkeys: said at start.
        #expect(throws: FederateError.self) { try Self.settings(["rp_name": "Example"]).configuration(origin: origin) }
    }

    @Test func theFileConfiguresOrTurnsThemOff() throws {
        #expect(try Self.settings(false).configuration(origin: "http://localhost:8080") == nil)
        let configured = try #require(
            try Self.settings([
                "rp_id": "example.com", "rp_name": "Example", "origins": ["https://app.example.com"], "user_verification": "required",
            ]).configuration(origin: "https://app.example.com"))
        #expect(configured.relyingPartyID == "example.com" && configured.relyingPartyName == "Example")
        #expect(configured.allowedOrigins == ["https://app.example.com"] && configured.userVerification == .required)
    }

    @Test(arguments: [
        JSONValue.string("yes"), .integer(1), ["rp_id": 7], ["rp_name": ""], ["origins": []], ["origins": [1]],
        ["user_verification": "always"], ["color": "blue"],
    ])
    func badValuesAreRefused(value: JSONValue) {
        do {
            _ = try Self.settings(value)
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test(arguments: ["1e300", "lоcalhost", "127.0.0.1", "0x7f.1"])
    func anRPIDThatIsNoDomainIsRefusedAtStart(id: String) throws {
        let settings = try Self.settings(["rp_id": .string(id)])
        #expect(throws: FederateError.self) { try settings.configuration(origin: "http://localhost:8080") }
    }
}
