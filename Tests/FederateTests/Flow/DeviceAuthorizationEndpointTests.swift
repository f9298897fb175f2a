import FederateTestSupport
import Foundation
import Testing
import Federate

/// Where a device authorization starts: discovery's `device_authorization_endpoint`, else
/// the profile's fallback (`StandardOpenIDProfile(fallbackDeviceAuthorizationEndpoint:)`, what
/// `federate login --device --device-authorization-endpoint` sets), checked like every endpoint.
@Suite("Device authorization endpoint: discovered or configured")
struct DeviceAuthorizationEndpointTests {
    static let answer =
        #"{"device_code": "dc", "user_code": "ABCD-EFGH", "verification_uri": "https://example.com/device", "expires_in": 600}"#

    @Test func theFallbackServesOnlyWhenDiscoveryAdvertisesNone() async throws {
        try await ScriptedProvider.with { provider in
            provider.on("/device") { _ in .json(Self.answer) }
            provider.on("/configured-device") { _ in .json(Self.answer) }

            let neither = try provider.client(.none)
            #expect(neither.deviceAuthorizationEndpoint == nil)
            let missing = await #expect(throws: FederateError.self) { try await neither.startDeviceAuthorization() }
            #expect(missing?.code == .endpointNotAvailable)

            let configured = try provider.client(
                .none, profile: StandardOpenIDProfile(fallbackDeviceAuthorizationEndpoint: provider.issuer + "/configured-device"))
            #expect(configured.deviceAuthorizationEndpoint == provider.issuer + "/configured-device")
            #expect(try await configured.startDeviceAuthorization().userCode == "ABCD-EFGH")
            #expect(provider.requests(to: "/configured-device").count == 1)

            // Discovery's wins.
            let both = try provider.client(
                .none, metadata: ["device_authorization_endpoint": .string(provider.issuer + "/device")],
                profile: StandardOpenIDProfile(fallbackDeviceAuthorizationEndpoint: provider.issuer + "/configured-device"))
            #expect(both.deviceAuthorizationEndpoint == provider.issuer + "/device")
            _ = try await both.startDeviceAuthorization()
            #expect(provider.requests(to: "/device").count == 1 && provider.requests(to: "/configured-device").count == 1)
        }
    }

    @Test(arguments: [
        ("http://device.example.com/device", FederateError.Code.insecureEndpoint), ("ftp://127.0.0.1/device", .insecureEndpoint),
        ("/device", .invalidURL), ("https://user:pass@device.example.com/device", .invalidURL),
    ])
    func anUnsafeFallbackIsRefusedBeforeAnythingIsSent(endpoint: String, code: FederateError.Code) async throws {
        try await ScriptedProvider.with { provider in
            let client = try provider.client(.none, profile: StandardOpenIDProfile(fallbackDeviceAuthorizationEndpoint: endpoint))
            let refused = await #expect(throws: FederateError.self) { try await client.startDeviceAuthorization() }
            #expect(refused?.code == code)
        }
    }
}
