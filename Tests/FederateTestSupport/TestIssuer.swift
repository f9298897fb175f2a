import Crypto
public import Federate
import Foundation
import Synchronization

/// A fake OpenID provider for tests, served by a real ``LoopbackHTTPServer``.
///
/// It holds signing keys, publishes their public halves as a JWKS at `/jwks`, serves a
/// discovery document at `<issuerPath>/.well-known/openid-configuration`, and mints ID tokens.
/// Every knob (keys, `Cache-Control`, failures, delays, discovery members) can be changed
/// while the server runs; the next request sees the change.
///
/// ```swift
/// try await TestIssuer.with { issuer in
///     let keys = try RemoteKeySet(url: issuer.jwksURL)
///     let verifier = IDTokenVerifier(policy: issuer.policy, keys: keys)
///     let token = try await verifier.verify(try issuer.idToken(claims: ["nonce": "n-1"]))
///     #expect(issuer.jwksRequestCount == 1)
/// }
/// ```
///
/// Each test should start its own issuer (tests run in parallel).
public final class TestIssuer: Sendable {
    /// The client ID used as the default `aud`: `client-123`.
    public static let defaultClientID = "client-123"

    /// The path of the key set.
    public static let jwksPath = "/jwks"

    /// The server everything is served from.
    public let server: LoopbackHTTPServer
    /// The issuer's path below the server's base URL (empty, or starting with `/`, no trailing `/`).
    public let issuerPath: String
    /// The client ID written into `aud` by default.
    public let clientID: String

    private let shared: Shared

    private init(server: LoopbackHTTPServer, issuerPath: String, clientID: String, shared: Shared) {
        self.server = server
        self.issuerPath = issuerPath
        self.clientID = clientID
        self.shared = shared
    }

    // MARK: - Lifecycle

    /// Starts an issuer on a fresh loopback server.
    ///
    /// - Parameters:
    ///   - issuerPath: a path for the issuer below the base URL, e.g. `/tenants/acme`
    ///     (the issuer is then `http://127.0.0.1:<port>/tenants/acme`).
    ///   - keys: the signing keys published at start; `nil` publishes one RSA-2048 key with
    ///     `kid` `rsa-1` (``rsaKey(keyID:)``).
    ///   - clientID: the default `aud`.
    public static func start(
        issuerPath: String = "",
        keys: [JWSSigningKey]? = nil,
        clientID: String = TestIssuer.defaultClientID
    ) async throws -> TestIssuer {
        var path = issuerPath
        while path.hasSuffix("/") { path.removeLast() }
        if !path.isEmpty && !path.hasPrefix("/") { path = "/" + path }

        let initialKeys = try keys ?? [rsaKey(keyID: "rsa-1")]
        let shared = Shared(keys: initialKeys)
        let discoveryPath = path + "/.well-known/openid-configuration"
        let server = try await LoopbackHTTPServer.start { request in
            shared.respond(to: request, discoveryPath: discoveryPath)
        }
        shared.state.withLock { $0.issuer = server.baseURL + path }
        return TestIssuer(server: server, issuerPath: path, clientID: clientID, shared: shared)
    }

    /// Starts an issuer, runs `body` with it, and stops it afterwards (also when `body` throws).
    public static func with<T>(
        issuerPath: String = "",
        keys: [JWSSigningKey]? = nil,
        clientID: String = TestIssuer.defaultClientID,
        _ body: (TestIssuer) async throws -> T
    ) async throws -> T {
        let issuer = try await start(issuerPath: issuerPath, keys: keys, clientID: clientID)
        let result: T
        do {
            result = try await body(issuer)
        } catch {
            try? await issuer.stop()
            throw error
        }
        try await issuer.stop()
        return result
    }

    /// Stops the server.
    public func stop() async throws {
        try await server.stop()
    }

    // MARK: - URLs

    /// The server's base URL, `http://127.0.0.1:<port>`.
    public var baseURL: String { server.baseURL }
    /// The issuer identifier: the base URL plus ``issuerPath``. Tokens carry it as `iss`, and
    /// the discovery document declares it unless ``discoveryIssuer`` overrides it.
    public var issuer: String { baseURL + issuerPath }
    /// The JWKS URL, `<baseURL>/jwks`.
    public var jwksURL: String { baseURL + Self.jwksPath }
    /// The discovery document's path on the server.
    public var discoveryPath: String { issuerPath + "/.well-known/openid-configuration" }
    /// The discovery document's URL.
    public var discoveryURL: String { baseURL + discoveryPath }

    // MARK: - Request counts

    /// How many requests `/jwks` has received.
    public var jwksRequestCount: Int { server.requestCount(path: Self.jwksPath) }
    /// How many requests the discovery document has received.
    public var discoveryRequestCount: Int { server.requestCount(path: discoveryPath) }

    // MARK: - Keys

    /// The signing keys whose public halves are published, in JWKS order.
    public var keys: [JWSSigningKey] {
        get { shared.state.withLock { $0.keys } }
        set { shared.state.withLock { $0.keys = newValue } }
    }

    /// The first published key: the default for ``idToken(claims:removing:key:algorithm:header:)``.
    public var signingKey: JWSSigningKey? { keys.first }

    /// Publishes one more key (after the existing ones).
    public func addKey(_ key: JWSSigningKey) {
        shared.state.withLock { $0.keys.append(key) }
    }

    /// Publishes and returns the RSA-2048 key ``rsaKey(keyID:)`` gives for this `kid`.
    @discardableResult
    public func addRSAKey(keyID: String) throws -> JWSSigningKey {
        let key = try Self.rsaKey(keyID: keyID)
        addKey(key)
        return key
    }

    /// An RSA-2048 key for this `kid`, generated on first use and then reused for the rest of
    /// the process: RSA generation is slow (a debug build takes a few hundred milliseconds per
    /// key), and tests running in parallel would otherwise starve each other and the event
    /// loops. Every issuer has its own server, so sharing key material between tests is
    /// harmless; for a key never seen before, use `JWSSigningKey.generateRSA(keyID:)`.
    public static func rsaKey(keyID: String) throws -> JWSSigningKey {
        if let cached = rsaKeys.withLock({ $0[keyID] }) { return cached }
        let generated = try JWSSigningKey.generateRSA(keyID: keyID)
        return rsaKeys.withLock { keys in
            if let raced = keys[keyID] { return raced }
            keys[keyID] = generated
            return generated
        }
    }

    private static let rsaKeys = Mutex<[String: JWSSigningKey]>([:])

    /// Generates, publishes and returns a new P-256 key (ES256).
    @discardableResult
    public func addP256Key(keyID: String) -> JWSSigningKey {
        let key = JWSSigningKey(p256: P256.Signing.PrivateKey(), keyID: keyID)
        addKey(key)
        return key
    }

    /// Replaces every published key with `key` (a rotation that retires the old keys).
    public func rotate(to key: JWSSigningKey) {
        shared.state.withLock { $0.keys = [key] }
    }

    /// Stops publishing the key with this `kid`.
    public func removeKey(withID keyID: String) {
        shared.state.withLock { $0.keys.removeAll { $0.keyID == keyID } }
    }

    /// The JWKS document currently served.
    public var jwksDocument: String {
        Self.jwks(for: keys)
    }

    /// The published keys as a local `JSONWebKeySet` (no HTTP).
    public func localKeySet() throws -> JSONWebKeySet {
        try JSONWebKeySet(jwks: Array(jwksDocument.utf8))
    }

    // MARK: - JWKS endpoint behaviour

    /// The `Cache-Control` header of the JWKS response; `nil` (the default) sends none.
    public var jwksCacheControl: String? {
        get { shared.state.withLock { $0.jwksCacheControl } }
        set { shared.state.withLock { $0.jwksCacheControl = newValue } }
    }

    /// When `true`, `/jwks` answers `500 Internal Server Error` (with the key set as the body,
    /// so only the status makes it a failure).
    public var jwksFails: Bool {
        get { shared.state.withLock { $0.jwksFails } }
        set { shared.state.withLock { $0.jwksFails = newValue } }
    }

    /// A delay before `/jwks` answers (to make concurrent fetches overlap).
    public var jwksDelay: Duration? {
        get { shared.state.withLock { $0.jwksDelay } }
        set { shared.state.withLock { $0.jwksDelay = newValue } }
    }

    // MARK: - Discovery endpoint behaviour

    /// Overrides the `issuer` the discovery document declares (`nil`: ``issuer``).
    public var discoveryIssuer: String? {
        get { shared.state.withLock { $0.discoveryIssuerOverride } }
        set { shared.state.withLock { $0.discoveryIssuerOverride = newValue } }
    }

    /// The status of the discovery response; anything but 200 sends an error body.
    public var discoveryStatus: Int {
        get { shared.state.withLock { $0.discoveryStatus } }
        set { shared.state.withLock { $0.discoveryStatus = newValue } }
    }

    /// The `Cache-Control` header of the discovery response; `nil` (the default) sends none.
    public var discoveryCacheControl: String? {
        get { shared.state.withLock { $0.discoveryCacheControl } }
        set { shared.state.withLock { $0.discoveryCacheControl = newValue } }
    }

    /// A delay before the discovery document is served.
    public var discoveryDelay: Duration? {
        get { shared.state.withLock { $0.discoveryDelay } }
        set { shared.state.withLock { $0.discoveryDelay = newValue } }
    }

    /// Sets a member of the discovery document (overriding the default), or removes it with `nil`.
    public func setDiscoveryMember(_ name: String, to value: JSONValue?) {
        shared.state.withLock { $0.discoveryOverrides[name] = .some(value) }
    }

    /// The discovery document currently served, as members.
    public var discoveryMembers: [String: JSONValue] {
        shared.state.withLock { $0.discoveryMembers() }
    }

    // MARK: - Tokens

    /// A policy accepting this issuer's tokens: ``issuer``, ``clientID``, RS256 and ES256.
    public var policy: IDTokenPolicy {
        IDTokenPolicy(issuers: [issuer], audiences: [clientID], allowedAlgorithms: [.rs256, .es256])
    }

    /// The default claims of a fresh ID token: `iss`, `sub` (`user-42`), `aud` (``clientID``),
    /// `iat` (now, or `now` seconds since 1970) and `exp` (`iat` + 600).
    public func defaultClaims(now: Int64? = nil) -> [String: JSONValue] {
        let seconds = now ?? Int64(Date().timeIntervalSince1970)
        return [
            "iss": .string(issuer),
            "sub": "user-42",
            "aud": .string(clientID),
            "iat": .integer(seconds),
            "exp": .integer(seconds + 600),
        ]
    }

    /// Mints a signed ID token.
    ///
    /// - Parameters:
    ///   - overrides: claims added to, or replacing, ``defaultClaims(now:)``.
    ///   - removing: claim names left out of the token.
    ///   - key: the signing key; defaults to ``signingKey`` (it need not be published).
    ///   - algorithm: defaults to the key's natural algorithm (RS256 for RSA, ES256 for P-256, …).
    ///   - header: extra header members; `alg` is always set, and `kid` is the key's unless
    ///     given here (so `["kid": "other"]` names a different key).
    public func idToken(
        claims overrides: [String: JSONValue] = [:],
        removing: Set<String> = [],
        key: JWSSigningKey? = nil,
        algorithm: JWSAlgorithm? = nil,
        header: [String: JSONValue] = ["typ": "JWT"]
    ) throws -> String {
        guard let key = key ?? signingKey else {
            throw FederateError(.invalidConfiguration, "the test issuer has no signing key")
        }
        guard let algorithm = algorithm ?? Self.naturalAlgorithm(of: key) else {
            throw FederateError(.invalidConfiguration, "no algorithm fits \(key)")
        }
        var claims = defaultClaims()
        claims.merge(overrides) { _, override in override }
        for name in removing { claims[name] = nil }
        return try key.sign(claims: claims, algorithm: algorithm, header: header)
    }

    /// The algorithm a key signs with by default: RS256, ES256, ES384, ES512, EdDSA or HS256.
    public static func naturalAlgorithm(of key: JWSSigningKey) -> JWSAlgorithm? {
        [JWSAlgorithm.rs256, .es256, .es384, .es512, .edDSA, .hs256].first { key.supports($0) }
    }

    /// A JWKS document publishing the public halves of `keys` (HMAC secrets are left out).
    public static func jwks(for keys: [JWSSigningKey]) -> String {
        let entries = keys.compactMap { $0.publicJWK() }.map(JSONValue.object)
        return JSONSerializer.string(.object(["keys": .array(entries)]))
    }
}

// MARK: - Shared state

extension TestIssuer {
    fileprivate struct State {
        var keys: [JWSSigningKey]
        var issuer = ""
        var jwksCacheControl: String?
        var jwksFails = false
        var jwksDelay: Duration?
        var discoveryIssuerOverride: String?
        var discoveryStatus = 200
        var discoveryCacheControl: String?
        var discoveryDelay: Duration?
        var discoveryOverrides: [String: JSONValue?] = [:]

        func discoveryMembers() -> [String: JSONValue] {
            var members: [String: JSONValue] = [
                "issuer": .string(discoveryIssuerOverride ?? issuer),
                "authorization_endpoint": .string(issuer + "/authorize"),
                "token_endpoint": .string(issuer + "/token"),
                "userinfo_endpoint": .string(issuer + "/userinfo"),
                "jwks_uri": .string(Self.origin(of: issuer) + TestIssuer.jwksPath),
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                "scopes_supported": ["openid", "email", "profile"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "private_key_jwt"],
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": true,
            ]
            for (name, value) in discoveryOverrides {
                members[name] = value
            }
            return members
        }

        /// `scheme://host:port` of an absolute URL.
        static func origin(of url: String) -> String {
            guard let separator = url.firstRange(of: "://") else { return url }
            let rest = url[separator.upperBound...]
            let authority = rest.prefix { $0 != "/" }
            return String(url[..<separator.upperBound]) + authority
        }
    }

    /// The state, shared by the issuer object and the server's handler.
    fileprivate final class Shared: Sendable {
        let state: Mutex<State>

        init(keys: [JWSSigningKey]) {
            state = Mutex(State(keys: keys))
        }

        func respond(to request: TestHTTPRequest, discoveryPath: String) -> TestHTTPResponse {
            let snapshot = state.withLock { $0 }
            switch request.path {
            case TestIssuer.jwksPath:
                if snapshot.jwksFails {
                    // The body is the real key set: a client must refuse it for the status alone.
                    var response = TestHTTPResponse.json(TestIssuer.jwks(for: snapshot.keys), status: 500)
                    response.delay = snapshot.jwksDelay
                    return response
                }
                var headers: [(name: String, value: String)] = []
                if let cacheControl = snapshot.jwksCacheControl {
                    headers.append((name: "Cache-Control", value: cacheControl))
                }
                var response = TestHTTPResponse.json(TestIssuer.jwks(for: snapshot.keys), headers: headers)
                response.delay = snapshot.jwksDelay
                return response
            case discoveryPath:
                var response: TestHTTPResponse
                if snapshot.discoveryStatus == 200 {
                    var headers: [(name: String, value: String)] = []
                    if let cacheControl = snapshot.discoveryCacheControl {
                        headers.append((name: "Cache-Control", value: cacheControl))
                    }
                    response = .json(JSONSerializer.string(.object(snapshot.discoveryMembers())), headers: headers)
                } else {
                    response = .json(#"{"error":"unavailable"}"#, status: snapshot.discoveryStatus)
                }
                response.delay = snapshot.discoveryDelay
                return response
            default:
                return .json(#"{"error":"not_found"}"#, status: 404)
            }
        }
    }
}
