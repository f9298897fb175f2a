import Crypto
import FederateTestSupport
import Federate
@testable import FederateDevProvider
import Foundation
import Testing

/// `private_key_jwt` at the generic flavour, and the faults the earlier suite does not cover.
@Suite("Dev provider: private_key_jwt and more faults")
struct ClientAuthenticationAndFaultTests {
    static func keyedConfiguration(_ key: JWSSigningKey, faults: Set<DevFault> = []) throws -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard
        let jwks = try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(try #require(key.publicJWK(algorithm: .es256)))]]))
        configuration.clients.append(DevClient(id: "keyed", redirectURIs: [Flavor.redirectURI], faults: faults, publicKeys: jwks))
        return configuration
    }

    @Test func privateKeyJWTIsAcceptedOnlyWithTheRegisteredKey() async throws {
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "client-key-1")
        try await Flavor.with(try Self.keyedConfiguration(key)) { provider in
            let client = try await Flavor.client(provider, id: "keyed", authentication: .privateKeyJWT(key: key, algorithm: .es256))
            let tokens = try await Flavor.signIn(client)
            #expect(tokens.idTokenClaims?.audiences == ["keyed"])

            let stranger = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "client-key-1")
            let impostor = try await Flavor.client(provider, id: "keyed", authentication: .privateKeyJWT(key: stranger, algorithm: .es256))
            let refused = await #expect(throws: FederateError.self) { try await Flavor.signIn(impostor) }
            #expect(refused?.code == "invalid_client")
            // A client registered for keys cannot fall back to no authentication.
            let bare = try await Flavor.client(provider, id: "keyed", authentication: .none)
            let unauthenticated = await #expect(throws: FederateError.self) { try await Flavor.signIn(bare) }
            #expect(unauthenticated?.code == "invalid_client")
        }
    }

    /// What independent clients found: the token endpoint is an acceptable `aud` at the
    /// revocation endpoint too (RFC 7523 §3); a refused assertion says why; a failed Basic
    /// authentication is 401 with `WWW-Authenticate` (RFC 6749 §5.2); discovery names the
    /// revocation endpoint's methods.
    @Test func assertionsAtTheRevocationEndpointAndWhatRefusalsSay() async throws {
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "client-key-1")
        try await Flavor.with(try Self.keyedConfiguration(key)) { provider in
            func assertion(aud: String, jti: String, lifetime: Int64 = 60) throws -> String {
                let now = Int64(Date().timeIntervalSince1970)
                return try key.sign(
                    claims: [
                        "iss": "keyed", "sub": "keyed", "aud": .string(aud), "jti": .string(jti), "iat": .integer(now),
                        "exp": .integer(now + lifetime),
                    ],
                    algorithm: .es256)
            }
            func revoke(_ assertion: String) async throws -> HTTPResponse {
                try await PatientTransport.shared.send(
                    HTTPRequest(
                        method: "POST", url: provider.baseURL + "/revoke", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array(
                            FormURLEncoding.encode([
                                ("token", "unknown"), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                                ("client_assertion", assertion),
                            ]).utf8)))
            }
            #expect(try await revoke(try assertion(aud: provider.baseURL + "/token", jti: "t")).status == 200)
            #expect(try await revoke(try assertion(aud: provider.baseURL + "/revoke", jti: "r")).status == 200)
            let tooLong = try await revoke(try assertion(aud: provider.baseURL + "/token", jti: "l", lifetime: 3600))
            #expect(tooLong.status == 401)
            let reason = try JSONParser().parseObject(tooLong.body)["error_description"]?.stringValue ?? ""
            #expect(reason.contains("invalid_claim") && reason.contains("300"), "\(reason)")

            let basic = try await PatientTransport.shared.send(
                HTTPRequest(
                    method: "POST", url: provider.baseURL + "/token",
                    headers: [
                        ("Content-Type", "application/x-www-form-urlencoded"),
                        ("Authorization", "Basic " + Data("dev-client:wrong".utf8).base64EncodedString()),
                    ],
                    body: Array("grant_type=refresh_token&refresh_token=x".utf8)))
            #expect(basic.status == 401 && basic.header("WWW-Authenticate")?.hasPrefix("Basic") == true)

            let document = try await PatientTransport.shared.send(HTTPRequest(url: provider.issuer + "/.well-known/openid-configuration"))
            #expect(
                try JSONParser().parseObject(document.body)["revocation_endpoint_auth_methods_supported"]?.arrayValue?.contains(
                    "private_key_jwt") == true)
        }
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "client-key-1")
        try await Flavor.with(try Self.keyedConfiguration(key)) { provider in
            let now = Int64(Date().timeIntervalSince1970)
            let assertion = try key.sign(
                claims: [
                    "iss": "keyed", "sub": "keyed", "aud": .string(provider.baseURL + "/token"), "jti": "once", "iat": .integer(now),
                    "exp": .integer(now + 60),
                ],
                algorithm: .es256)
            let form = FormURLEncoding.encode([
                ("grant_type", "refresh_token"), ("refresh_token", "unknown"),
                ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", assertion),
            ])
            func post() async throws -> JSONValue? {
                let response = try await PatientTransport.shared.send(
                    HTTPRequest(
                        method: "POST", url: provider.baseURL + "/token", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array(form.utf8)))
                return try JSONParser().parseObject(response.body)["error"]
            }
            #expect(try await post() == "invalid_grant")  // authenticated; the refresh token is what fails
            #expect(try await post() == "invalid_client")  // the same jti again
        }
    }

    @Test(arguments: [
        (DevFault.missingExpiry, FederateError.Code.missingClaim), (.truncatedBody, .httpFailed),
    ])
    func faultIsRejectedWithItsCode(fault: DevFault, code: FederateError.Code) async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.clients.append(DevClient(id: "faulty", secret: "faulty-secret", redirectURIs: [Flavor.redirectURI], faults: [fault]))
        try await Flavor.with(configuration) { provider in
            let client = try await Flavor.client(provider, id: "faulty", authentication: .clientSecretBasic(secret: "faulty-secret"))
            let error = await #expect(throws: FederateError.self) { try await Flavor.signIn(client) }
            #expect(error?.code == code, "\(fault): \(String(describing: error))")
        }
    }

    @Test func slowTokenEndpointTimesOut() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.clients.append(DevClient(id: "slow", secret: "s", redirectURIs: [Flavor.redirectURI], faults: [.slowResponse]))
        try await Flavor.with(configuration) { provider in
            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
            let client = try OpenIDClient(
                metadata: metadata, clientID: "slow", authentication: .clientSecretBasic(secret: "s"),
                httpClient: TimeoutOverride(timeout: .milliseconds(500)))
            let error = await #expect(throws: FederateError.self) { try await Flavor.signIn(client) }
            #expect(error?.code == .httpTimeout)
        }
    }

    @Test func keyRotationFaultIsAcceptedAfterOneRefetch() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.clients.append(DevClient(id: "rotating", secret: "s", redirectURIs: [Flavor.redirectURI], faults: [.rotateKeys]))
        try await Flavor.with(configuration) { provider in
            let client = try await Flavor.client(provider, id: "rotating", authentication: .clientSecretBasic(secret: "s"))
            let first = try await Flavor.signIn(client)
            let second = try await Flavor.signIn(client)  // signed by a key the cached set lacks
            #expect(first.idTokenClaims?.keyID != second.idTokenClaims?.keyID)
        }
    }
}

/// Sends every request with a shorter timeout.
struct TimeoutOverride: HTTPClient {
    let timeout: Duration

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.timeout = timeout
        return try await AsyncHTTPClientTransport.shared.send(request)
    }
}
