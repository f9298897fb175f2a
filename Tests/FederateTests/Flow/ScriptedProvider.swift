import FederateTestSupport
import Foundation
import Synchronization
import Federate
@testable import FederateAccounts
@testable import FederateRelyingParty
@testable import FederateTokens

/// An OpenID provider on a real loopback HTTP server whose endpoints each test scripts:
/// the token, userinfo and revocation endpoints answer what the test says, and every
/// request is recorded so tests can check what the client sent (and what it did not).
final class ScriptedProvider: Sendable {
    typealias Handler = @Sendable (TestHTTPRequest) -> TestHTTPResponse

    let server: LoopbackHTTPServer
    let key: JWSSigningKey
    private let handlers: HandlerTable
    static let clientID = "client:1 é"

    private init(server: LoopbackHTTPServer, key: JWSSigningKey, handlers: HandlerTable) {
        self.server = server
        self.key = key
        self.handlers = handlers
    }

    /// Starts a provider, runs `body`, stops it (also when `body` throws).
    static func with<T>(_ body: (ScriptedProvider) async throws -> T) async throws -> T {
        let handlers = HandlerTable()
        let server = try await LoopbackHTTPServer.start { request in handlers.respond(to: request) }
        let provider = ScriptedProvider(server: server, key: try TestIssuer.rsaKey(keyID: "rsa-1"), handlers: handlers)
        do {
            let result = try await body(provider)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    var issuer: String { server.baseURL }
    var tokenEndpoint: String { issuer + "/token" }

    /// Scripts the answer for requests to `path`.
    func on(_ path: String, _ handler: @escaping Handler) {
        handlers.set(path, handler)
    }

    /// The requests received at `path`.
    func requests(to path: String) -> [TestHTTPRequest] {
        server.receivedRequests.filter { $0.path == path }
    }

    func metadata(_ overrides: [String: JSONValue?] = [:]) throws -> ProviderMetadata {
        var members: [String: JSONValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/authorize"),
            "token_endpoint": .string(tokenEndpoint),
            "userinfo_endpoint": .string(issuer + "/userinfo"),
            "revocation_endpoint": .string(issuer + "/revoke"),
            "jwks_uri": .string(issuer + "/jwks"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        ]
        for (name, value) in overrides {
            if let value { members[name] = value } else { members.removeValue(forKey: name) }
        }
        return try ProviderMetadata(members: members, expectedIssuer: issuer)
    }

    /// A client whose keys are this provider's public key (no JWKS fetch).
    func client(
        _ authentication: ClientAuthentication = .clientSecretBasic(secret: "p@ss word"),
        metadata overrides: [String: JSONValue?] = [:], profile: any OpenIDProviderProfile = StandardOpenIDProfile(),
        clock: FederateClock = .system
    ) throws -> OpenIDClient {
        let jwks = TestIssuer.jwks(for: [key])
        return try OpenIDClient(
            metadata: metadata(overrides), clientID: Self.clientID, authentication: authentication, profile: profile,
            keys: JSONWebKeySet(jwks: Array(jwks.utf8)), httpClient: PatientTransport.shared, clock: clock)
    }

    /// A pending authorization for `client`, as built for a real redirect.
    func pending(for client: OpenIDClient, maxAge: Duration? = nil) async throws -> PendingAuthorization {
        try await client.authorizationRequest(providerID: "oidc.test", redirectURI: "http://127.0.0.1:9/callback", maxAge: maxAge).pending
    }

    /// An ID token for the default user, signed with ``key``.
    func idToken(_ claims: [String: JSONValue] = [:], removing: Set<String> = []) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var all: [String: JSONValue] = [
            "iss": .string(issuer), "sub": "user-1", "aud": .string(Self.clientID), "iat": .integer(now),
            "exp": .integer(now + 600),
        ]
        all.merge(claims) { _, new in new }
        for name in removing { all.removeValue(forKey: name) }
        return try key.sign(claims: all, algorithm: .rs256)
    }

    /// A token response with an ID token for `nonce` whose `at_hash` matches `accessToken`.
    func tokenResponse(
        nonce: String?, accessToken: String = "access-1", idTokenClaims: [String: JSONValue] = [:],
        extra: [String: JSONValue?] = [:]
    ) throws -> TestHTTPResponse {
        var claims: [String: JSONValue] = ["at_hash": .string(TokenHash.compute(accessToken, algorithm: .rs256))]
        if let nonce { claims["nonce"] = .string(nonce) }
        claims.merge(idTokenClaims) { _, new in new }
        var body: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": "refresh-1", "id_token": .string(try idToken(claims)),
        ]
        for (name, value) in extra {
            if let value { body[name] = value } else { body.removeValue(forKey: name) }
        }
        return .json(JSONSerializer.string(.object(body)))
    }

    /// Scripts `/token` to answer `response`.
    func tokenEndpointAnswers(_ response: TestHTTPResponse) {
        on("/token") { _ in response }
    }
}

/// The handlers by path; unknown paths answer 404.
private final class HandlerTable: Sendable {
    private let table = Mutex<[String: ScriptedProvider.Handler]>([:])

    func set(_ path: String, _ handler: @escaping ScriptedProvider.Handler) {
        table.withLock { $0[path] = handler }
    }

    func respond(to request: TestHTTPRequest) -> TestHTTPResponse {
        let handler = table.withLock { $0[request.path] }
        return handler?(request) ?? .json(#"{"error":"not_found"}"#, status: 404)
    }
}

extension TestHTTPRequest {
    /// The form body, decoded.
    var form: [String: String] { (try? FormURLEncoding.decode(bodyString)) ?? [:] }
}
