import Crypto
import Federate
@testable import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty

/// Pushed authorization requests (RFC 9126), request objects (RFC 9101) and
/// `client_secret_jwt`, end to end against the dev provider over real HTTP.
@Suite("Pushed authorization and request objects")
struct PushedAuthorizationTests {
    static let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "jar-key-1")

    /// The standard configuration plus a client with a registered P-256 key.
    static func configuration(requirePushed: Bool = false, clock: FederateClock = .system) throws -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard
        let jwks = try JSONWebKeySet(jwks: JSONSerializer.bytes(["keys": [.object(try #require(key.publicJWK(algorithm: .es256)))]]))
        configuration.clients.append(DevClient(id: "keyed", redirectURIs: [Flavor.redirectURI], publicKeys: jwks))
        configuration.clients.append(DevClient(id: "jwt-secret", secret: jwtSecret, redirectURIs: [Flavor.redirectURI]))
        configuration.requirePushedAuthorizationRequests = requirePushed
        configuration.clock = clock
        return configuration
    }

    /// HS256 needs a secret of at least 32 bytes (RFC 7518 §3.2).
    static let jwtSecret = "a client secret of at least 32 bytes"

    static func client(
        _ provider: DevProvider, id: String = "dev-client", authentication: ClientAuthentication = .clientSecretBasic(secret: "dev-secret"),
        clock: FederateClock = .system
    ) async throws -> OpenIDClient {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        return try OpenIDClient(
            metadata: metadata, clientID: id, authentication: authentication, httpClient: PatientTransport.shared, clock: clock)
    }

    static func queryNames(_ url: String) throws -> Set<String> {
        Set(try #require(URLComponents(string: url)?.queryItems).map(\.name))
    }

    @Test func aPushedRequestLeavesOnlyClientIDAndRequestURIInTheRedirect() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let client = try await Self.client(provider)
            #expect(client.metadata.pushedAuthorizationRequestEndpoint == provider.baseURL + "/par")
            #expect(!client.metadata.requiresPushedAuthorizationRequests)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Flavor.redirectURI, delivery: .pushed)
            #expect(try Self.queryNames(built.url) == ["client_id", "request_uri"])
            let pushed = try #require(built.pushed)
            #expect(pushed.requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
            let tokens = try await client.finish(try await Flavor.authorize(built.url), pending: built.pending).tokens
            #expect(tokens.idTokenClaims?.subject == "alice")
            // A request_uri is used once.
            let again = try await PatientTransport.shared.send(HTTPRequest(url: built.url))
            #expect(again.status == 400)
        }
    }

    @Test func aProviderThatRequiresPushingGetsPushedRequestsOnly() async throws {
        try await Flavor.with(try Self.configuration(requirePushed: true)) { provider in
            let client = try await Self.client(provider, id: "dev-public", authentication: .none)
            #expect(client.metadata.requiresPushedAuthorizationRequests)
            let refused = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Flavor.redirectURI)
            }
            #expect(refused?.code == .pushedAuthorizationRequired)
            // The provider itself refuses a request that was not pushed.
            var plain = URLComponents(string: client.metadata.authorizationEndpoint)
            plain?.queryItems = [
                URLQueryItem(name: "client_id", value: "dev-public"), URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "redirect_uri", value: Flavor.redirectURI), URLQueryItem(name: "scope", value: "openid"),
                URLQueryItem(name: "state", value: "s"), URLQueryItem(name: "nonce", value: "n"),
                URLQueryItem(name: "code_challenge", value: String(repeating: "A", count: 43)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
            let plainURL = try #require(plain?.string)
            let refusal = try await PatientTransport.shared.send(HTTPRequest(url: plainURL))
            #expect(refusal.status == 400)
            #expect(String(decoding: refusal.body, as: UTF8.self).contains("Pushed request required"))

            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Flavor.redirectURI, delivery: .automatic)
            #expect(built.pushed != nil)
            let tokens = try await client.finish(try await Flavor.authorize(built.url), pending: built.pending).tokens
            #expect(tokens.idTokenClaims?.subject == "alice")
        }
    }

    @Test func anExpiredRequestURIIsRefusedOnBothSides() async throws {
        let clock = TestClock()
        try await Flavor.with(try Self.configuration(clock: clock.clock)) { provider in
            let client = try await Self.client(provider, clock: clock.clock)
            let built = try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: Flavor.redirectURI, delivery: .pushed)
            let pushed = try #require(built.pushed)
            #expect(pushed.expiresAt == clock.now.addingTimeInterval(60))
            clock.advance(by: .seconds(60))
            let late = #expect(throws: FederateError.self) { try pushed.redirectURL(at: clock.now) }
            #expect(late?.code == .requestURIExpired)
            #expect(try await PatientTransport.shared.send(HTTPRequest(url: built.url)).status == 400)
        }
    }

    @Test func pushingAuthenticatesTheClient() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let impostor = try await Self.client(provider, authentication: .clientSecretPost(secret: "wrong"))
            let refused = await #expect(throws: FederateError.self) {
                try await impostor.authorizationRequest(providerID: "oidc.dev", redirectURI: Flavor.redirectURI, delivery: .pushed)
            }
            #expect(refused?.code == .invalidClient)
            // An unregistered redirect URI is refused at the push, before any browser is involved.
            let client = try await Self.client(provider, id: "jwt-secret", authentication: .clientSecretJWT(secret: Self.jwtSecret))
            let badRedirect = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(providerID: "oidc.dev", redirectURI: "https://evil.example/cb", delivery: .pushed)
            }
            #expect(badRedirect?.code == .invalidRequest)
        }
    }

    @Test func requestObjectsSignedWithTheClientKeyFrontChannelAndPushed() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let authentication = ClientAuthentication.privateKeyJWT(key: Self.key, algorithm: .es256)
            let client = try await Self.client(provider, id: "keyed", authentication: authentication)
            let signing = try #require(RequestObjectSigning.matching(authentication))
            let front = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Flavor.redirectURI, delivery: AuthorizationDelivery(requestObject: signing),
                loginHint: "bob")
            #expect(try Self.queryNames(front.url) == ["client_id", "response_type", "scope", "request"])
            let request = try #require(URLComponents(string: front.url)?.queryItems?.first { $0.name == "request" }?.value)
            let jws = try CompactJWS(parsing: request)
            #expect(jws.header.type == "oauth-authz-req+jwt")
            let claims = try JSONParser().parseObject(jws.payload)
            #expect(claims["iss"] == .string("keyed") && claims["aud"] == .string(provider.issuer) && claims["login_hint"] == "bob")
            #expect(claims["nonce"] == .string(front.pending.nonce) && claims["jti"] != nil && claims["nbf"] != nil)
            let tokens = try await client.finish(try await Flavor.authorize(front.url), pending: front.pending).tokens
            #expect(tokens.idTokenClaims?.subject == "bob")

            let pushed = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Flavor.redirectURI,
                delivery: AuthorizationDelivery(push: .always, requestObject: signing))
            #expect(try Self.queryNames(pushed.url) == ["client_id", "request_uri"])
            #expect(
                try await client.finish(try await Flavor.authorize(pushed.url), pending: pushed.pending).tokens.idTokenClaims?.subject
                    == "alice")
        }
    }

    @Test func aRequestObjectByAnotherKeyIsRefused() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let stranger = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: "jar-key-1")
            let client = try await Self.client(provider, id: "keyed", authentication: .privateKeyJWT(key: Self.key, algorithm: .es256))
            let built = try await client.authorizationRequest(
                providerID: "oidc.dev", redirectURI: Flavor.redirectURI,
                delivery: AuthorizationDelivery(requestObject: try RequestObjectSigning(key: stranger, algorithm: .es256)))
            #expect(try await PatientTransport.shared.send(HTTPRequest(url: built.url)).status == 400)
            let pushed = await #expect(throws: FederateError.self) {
                try await client.authorizationRequest(
                    providerID: "oidc.dev", redirectURI: Flavor.redirectURI,
                    delivery: AuthorizationDelivery(
                        push: .always, requestObject: try RequestObjectSigning(key: stranger, algorithm: .es256)))
            }
            #expect(pushed?.code.rawValue == "invalid_request_object")
        }
    }

    @Test func clientSecretJWTAtTheTokenEndpoint() async throws {
        try await Flavor.with(try Self.configuration()) { provider in
            let client = try await Self.client(provider, id: "jwt-secret", authentication: .clientSecretJWT(secret: Self.jwtSecret))
            #expect(client.metadata.tokenEndpointAuthMethodsSupported?.contains("client_secret_jwt") == true)
            let tokens = try await Flavor.signIn(client)
            #expect(tokens.idTokenClaims?.subject == "alice")
            let wrong = try await Self.client(
                provider, id: "jwt-secret", authentication: .clientSecretJWT(secret: "not the secret, but long enough anyway"))
            let refused = await #expect(throws: FederateError.self) { try await Flavor.signIn(wrong) }
            #expect(refused?.code == .invalidClient)
            // Negotiation still prefers Basic when the provider offers it.
            let negotiated = try ClientAuthentication.negotiate(metadata: client.metadata, secret: "s")
            #expect(negotiated.methodName == "client_secret_basic")
        }
    }
}
