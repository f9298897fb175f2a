import FederateTestSupport
import Foundation
import Testing
import Federate
@testable import FederateRelyingParty
@testable import FederateTokens

/// What a pushed-authorization or device-authorization endpoint can answer that must be
/// refused with a typed error, never a trap: against a scripted provider on real loopback HTTP.
@Suite("Pushed and device authorization: hostile answers")
struct ClientFlowHostileInputTests {
    static let redirect = "http://127.0.0.1:9/callback"

    static func parMetadata(_ provider: ScriptedProvider) -> [String: JSONValue?] {
        ["pushed_authorization_request_endpoint": .string(provider.issuer + "/par")]
    }

    static func deviceMetadata(_ provider: ScriptedProvider) -> [String: JSONValue?] {
        ["device_authorization_endpoint": .string(provider.issuer + "/device")]
    }

    @Test(arguments: [
        #"{"request_uri": "urn:x", "expires_in": -5}"#, #"{"request_uri": "urn:x", "expires_in": 0}"#,
        #"{"request_uri": "urn:x", "expires_in": 1e300}"#, #"{"request_uri": "urn:x", "expires_in": 90.5}"#,
        #"{"request_uri": "urn:x", "expires_in": "60"}"#, #"{"request_uri": "urn:x", "expires_in": 99999999999999999999999}"#,
        #"{"request_uri": "urn:x"}"#, #"{"expires_in": 60}"#, #"{"request_uri": "", "expires_in": 60}"#,
        #"{"request_uri": "urn:x\ny", "expires_in": 60}"#, #"{"request_uri": 5, "expires_in": 60}"#, #"{"request_uri": "#, "[1,2]", "",
    ])
    func unusablePushedAnswersAreRefused(body: String) async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/par") { _ in .json(body, status: 201) }
            let client = try provider.client(metadata: Self.parMetadata(provider))
            let error = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed)
            }
            #expect(error?.code == .invalidPushedAuthorizationResponse)
        }
    }

    @Test func pushedRequestsSendTheParametersAndAuthenticateOnce() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/par") { _ in .json(#"{"request_uri": "urn:ietf:params:oauth:request_uri:abc", "expires_in": 90}"#, status: 201) }
            let client = try provider.client(.clientSecretPost(secret: "s"), metadata: Self.parMetadata(provider))
            let built = try await client.authorizationRequest(
                providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed, customParameters: ["login_hint": "x"])
            let request = try #require(provider.requests(to: "/par").first)
            #expect(request.form["client_id"] == ScriptedProvider.clientID && request.form["client_secret"] == "s")
            #expect(request.form["state"] == built.pending.state && request.form["code_challenge_method"] == "S256")
            #expect(request.bodyString.components(separatedBy: "client_id=").count == 2)
            let expected =
                provider.issuer + "/authorize?client_id=" + FormURLEncoding.escape(ScriptedProvider.clientID)
                + "&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Aabc"
            #expect(built.url == expected)
            // Basic sends client_id in the body too, once.
            let basic = try provider.client(.clientSecretBasic(secret: "s"), metadata: Self.parMetadata(provider))
            _ = try await basic.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed)
            let second = try #require(provider.requests(to: "/par").last)
            #expect(second.header("Authorization") != nil && second.form["client_id"] == ScriptedProvider.clientID)
        }
    }

    @Test func pushedEndpointFailuresAreTyped() async throws {
        try await ScriptedProvider.with { provider in
            let missing = try provider.client()
            let noEndpoint = await #expect(throws: FederateError.self) {
                try await missing.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed)
            }
            #expect(noEndpoint?.code == .endpointNotAvailable)
            let required = try provider.client(metadata: ["require_pushed_authorization_requests": true])
            let notAdvertised = await #expect(throws: FederateError.self) {
                try await required.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .automatic)
            }
            #expect(notAdvertised?.code == .endpointNotAvailable)

            let client = try provider.client(metadata: Self.parMetadata(provider))
            provider.on("/par") { _ in .json(#"{"error": "invalid_request", "error_description": "no"}"#, status: 400) }
            let refused = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed)
            }
            #expect(refused?.code == .invalidRequest && refused?.providerError?.description == "no")
            provider.on("/par") { _ in .text("<html>oops", status: 502) }
            let broken = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(providerID: "oidc.test", redirectURI: Self.redirect, delivery: .pushed)
            }
            #expect(broken?.code == .unexpectedStatus)

            // Refused when the document is parsed, like every endpoint member (nothing is pushed).
            let plainHTTP = #expect(throws: FederateError.self) {
                try provider.client(metadata: ["pushed_authorization_request_endpoint": "http://par.example/par"])
            }
            #expect(plainHTTP?.code == .insecureEndpoint)
        }
    }

    @Test func aMalformedRequirementFlagIsReadAsRequired() async throws {
        try await ScriptedProvider.with { provider in
            let malformed = try provider.metadata(["require_pushed_authorization_requests": "false"])
            let off = try provider.metadata(["require_pushed_authorization_requests": false])
            let absent = try provider.metadata()
            #expect(malformed.requiresPushedAuthorizationRequests)
            #expect(!off.requiresPushedAuthorizationRequests && !absent.requiresPushedAuthorizationRequests)
        }
    }

    static let goodDevice: [String: JSONValue] = [
        "device_code": "dc", "user_code": "ABCD-EFGH", "verification_uri": "https://example.com/device", "expires_in": 600, "interval": 5,
    ]

    static func deviceAnswer(_ changes: [String: JSONValue?]) -> String {
        var body = goodDevice
        for (name, value) in changes {
            if let value { body[name] = value } else { body.removeValue(forKey: name) }
        }
        return JSONSerializer.string(.object(body))
    }

    @Test(arguments: [
        deviceAnswer(["expires_in": -1]), deviceAnswer(["expires_in": 1e30]), deviceAnswer(["expires_in": 2.5]),
        deviceAnswer(["expires_in": nil]),
        deviceAnswer(["interval": -5]), deviceAnswer(["interval": 1e18]), deviceAnswer(["interval": 4.5]), deviceAnswer(["interval": "5"]),
        deviceAnswer(["user_code": "AB\u{1B}[2J"]), deviceAnswer(["user_code": "AB\u{202E}CD"]), deviceAnswer(["user_code": ""]),
        deviceAnswer(["user_code": .string(String(repeating: "A", count: 129))]), deviceAnswer(["device_code": nil]),
        deviceAnswer(["verification_uri": "http://phish.example/device"]), deviceAnswer(["verification_uri": "javascript:alert(1)"]),
        deviceAnswer(["verification_uri_complete": 7]), deviceAnswer(["verification_uri": nil]), #"{"device_code": "#, "null",
    ])
    func unusableDeviceAnswersAreRefused(body: String) async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/device") { _ in .json(body) }
            let client = try provider.client(.none, metadata: Self.deviceMetadata(provider))
            let error = await #expect(throws: FederateError.self) { try await client.startDeviceAuthorization() }
            #expect(error?.code == .invalidDeviceAuthorizationResponse)
        }
    }

    @Test func aZeroIntervalPollsEverySecondAndAHugeExpiryIsCapped() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/device") { _ in .json(Self.deviceAnswer(["interval": 0, "expires_in": 86_400])) }
            let client = try provider.client(.none, metadata: Self.deviceMetadata(provider))
            let authorization = try await client.startDeviceAuthorization()
            #expect(authorization.interval == .seconds(1))
            provider.on("/device") { _ in .json(Self.deviceAnswer(["interval": nil, "expires_in": 86_401])) }
            await #expect(throws: FederateError.self) { try await client.startDeviceAuthorization() }
            provider.on("/device") { _ in .json(Self.deviceAnswer(["interval": nil])) }
            #expect(try await client.startDeviceAuthorization().interval == .seconds(5))
            let request = try #require(provider.requests(to: "/device").last)
            #expect(request.form == ["client_id": ScriptedProvider.clientID, "scope": "openid email profile"])
        }
    }

    @Test func malformedPollAnswersStopPolling() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/device") { _ in .json(Self.deviceAnswer([:])) }
            let clock = TestClock()
            let client = try provider.client(.none, metadata: Self.deviceMetadata(provider), clock: clock.clock)
            let authorization = try await client.startDeviceAuthorization()
            provider.tokenEndpointAnswers(.json(#"{"error": "authorization_pen"#, status: 400))
            let garbled = await #expect(throws: FederateError.self) {
                try await client.waitForDeviceAuthorization(authorization) { clock.advance(by: $0) }
            }
            #expect(garbled?.code == .unexpectedStatus)
            provider.tokenEndpointAnswers(.json(#"{"access_token": 5}"#))
            let shapeless = await #expect(throws: FederateError.self) {
                try await client.waitForDeviceAuthorization(authorization) { clock.advance(by: $0) }
            }
            #expect(shapeless?.code == .invalidTokenResponse)
            #expect(provider.requests(to: "/token").first?.form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
            // An ID token must come back, and it is verified: one for another audience is refused.
            provider.tokenEndpointAnswers(try provider.tokenResponse(nonce: nil, idTokenClaims: ["aud": "someone-else"]))
            let foreign = await #expect(throws: FederateError.self) {
                try await client.waitForDeviceAuthorization(authorization) { clock.advance(by: $0) }
            }
            #expect(foreign?.code == .audienceMismatch)
        }
    }
}
