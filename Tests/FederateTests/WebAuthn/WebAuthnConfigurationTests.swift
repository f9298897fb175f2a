import FederateTestSupport
import Foundation
import Testing
@testable import FederateTokens

/// The relying party's configuration and the options it issues.
@Suite("WebAuthn configuration and options")
struct WebAuthnConfigurationTests {
    func refusal(_ rpID: String, origins: [String]? = nil) -> FederateError.Code? {
        do {
            _ = try WebAuthnConfiguration(relyingPartyID: rpID, relyingPartyName: "Example", allowedOrigins: origins)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func originsDefaultToHTTPSOnTheRPID() throws {
        let configuration = try WebAuthnConfiguration(relyingPartyID: "example.com", relyingPartyName: "Example")
        #expect(configuration.allowedOrigins == ["https://example.com"])
        #expect(configuration.userVerification == .preferred)
        #expect(configuration.challengeLifetime == .seconds(300))
        #expect(configuration.algorithms == [.es256, .edDSA, .rs256])
    }

    @Test func developmentOnLocalhostIsExpressible() throws {
        let local = try WebAuthnConfiguration(
            relyingPartyID: "localhost", relyingPartyName: "Dev", allowedOrigins: ["http://localhost:8080"])
        #expect(local.allowedOrigins == ["http://localhost:8080"])
        #expect(refusal("example.com", origins: ["http://example.com"]) == .invalidConfiguration)
        #expect(refusal("localhost", origins: ["http://localhost:0"]) == .invalidConfiguration)
        #expect(refusal("localhost", origins: ["http://localhost:65536"]) == .invalidConfiguration)
    }

    @Test func theRPIDIsADomainAndOriginsLieWithinIt() {
        for bad in [
            "", "127.0.0.1", "10.1", "::1", "[::1]", "com", "example..com", ".example.com", "example.com.", "Example.com", "exa mple.com",
        ] {
            #expect(refusal(bad) == .invalidConfiguration, "\(bad)")
        }
        #expect(refusal("example.com", origins: ["https://login.example.com", "https://example.com:8443"]) == nil)
        for bad in [
            "https://evilexample.com", "https://example.com.evil.com", "https://example.org", "https://example.com/",
            "https://example.com/path",
            "https://user@example.com", "ftp://example.com", "https://EXAMPLE.com", "https://example.com:", "https://example.com:08443",
            "https://",
        ] {
            #expect(refusal("example.com", origins: [bad]) == .invalidConfiguration, "\(bad)")
        }
        #expect(refusal("example.com", origins: []) == .invalidConfiguration)
    }

    @Test func registrationOptionsAreLevel3JSON() throws {
        let harness = try WebAuthnHarness()
        let existing = WebAuthnCredentialDescriptor(id: [1, 2, 3], transports: ["usb"])
        let options = harness.party.registrationOptions(for: WebAuthnHarness.user, excluding: [existing])
        let json = try JSONParser().parseObject(Array(options.jsonText.utf8))
        #expect(options.challenge.bytes.count == 32)
        #expect(options.challenge.ceremony == .registration)
        #expect(options.challenge.expiresAt == harness.clock.now.addingTimeInterval(300))
        #expect(options.challenge.userHandle == Array("user-1".utf8))
        #expect(json["challenge"]?.stringValue == Base64URL.encode(options.challenge.bytes))
        #expect(json["rp"] == ["id": "example.com", "name": "Example"])
        #expect(json["user"] == ["id": .string(Base64URL.encode(Array("user-1".utf8))), "name": "ada@example.com", "displayName": "Ada"])
        #expect(
            json["pubKeyCredParams"] == [
                ["type": "public-key", "alg": -7], ["type": "public-key", "alg": -8], ["type": "public-key", "alg": -257],
            ])
        #expect(json["excludeCredentials"] == [["type": "public-key", "id": "AQID", "transports": ["usb"]]])
        #expect(json["authenticatorSelection"] == ["residentKey": "required", "requireResidentKey": true, "userVerification": "preferred"])
        #expect(json["attestation"] == "none")
        #expect(json["timeout"] == 300_000)
        // Every challenge is new.
        #expect(harness.party.registrationOptions(for: WebAuthnHarness.user).challenge.bytes != options.challenge.bytes)
    }

    @Test func authenticationOptionsAreLevel3JSON() throws {
        let harness = try WebAuthnHarness()
        let options = harness.party.authenticationOptions(allowing: [WebAuthnCredentialDescriptor(id: [9])], userVerification: .required)
        let json = try JSONParser().parseObject(Array(options.jsonText.utf8))
        #expect(options.challenge.ceremony == .authentication)
        #expect(options.challenge.userVerification == .required)
        #expect(json["rpId"] == "example.com")
        #expect(json["allowCredentials"] == [["type": "public-key", "id": "CQ"]])
        #expect(json["userVerification"] == "required")
        #expect(json["challenge"]?.stringValue.flatMap(Base64URL.decode) == options.challenge.bytes)
        #expect(harness.party.authenticationOptions().challenge.userVerification == .preferred)
    }

    @Test func userHandlesHaveOneTo64Bytes() {
        #expect(throws: FederateError.self) { try WebAuthnUser(id: [], name: "a", displayName: "a") }
        #expect(throws: FederateError.self) { try WebAuthnUser(id: Array(repeating: 1, count: 65), name: "a", displayName: "a") }
    }
}
