import Federate
import FederateTestSupport
import Testing
@testable import FederateRelyingParty

/// ``DiscoveryClient`` against a real HTTP server on the loopback interface (``TestIssuer``),
/// and the whole chain: discovery → remote key set → ID token verification.
@Suite("Discovery")
struct DiscoveryTests {
    static let requiredFields = [
        "issuer",
        "authorization_endpoint",
        "token_endpoint",
        "jwks_uri",
        "response_types_supported",
        "subject_types_supported",
        "id_token_signing_alg_values_supported",
    ]

    static let endpointFields = [
        "authorization_endpoint",
        "token_endpoint",
        "jwks_uri",
        "userinfo_endpoint",
        "revocation_endpoint",
        "end_session_endpoint",
        "introspection_endpoint",
    ]

    // MARK: - Parsing

    @Test func validDocumentIsParsed() async throws {
        try await TestIssuer.with { issuer in
            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            #expect(metadata.issuer == issuer.issuer)
            #expect(metadata.authorizationEndpoint == issuer.issuer + "/authorize")
            #expect(metadata.tokenEndpoint == issuer.issuer + "/token")
            #expect(metadata.userinfoEndpoint == issuer.issuer + "/userinfo")
            #expect(metadata.jwksURI == issuer.jwksURL)
            #expect(metadata.revocationEndpoint == nil)
            #expect(metadata.endSessionEndpoint == nil)
            #expect(metadata.responseTypesSupported == ["code"])
            #expect(metadata.subjectTypesSupported == ["public"])
            #expect(metadata.idTokenSigningAlgValuesSupported == ["RS256", "ES256"])
            #expect(metadata.defaultIDTokenAlgorithms == [.rs256, .es256])
            #expect(metadata.scopesSupported == ["openid", "email", "profile"])
            #expect(metadata.grantTypesSupported == ["authorization_code", "refresh_token"])
            #expect(metadata.tokenEndpointAuthMethodsSupported == ["client_secret_basic", "private_key_jwt"])
            #expect(metadata.codeChallengeMethodsSupported == ["S256"])
            #expect(metadata.claimsSupported == nil)
            #expect(metadata.authorizationResponseIssParameterSupported)
            #expect(metadata.document["issuer"] == .string(issuer.issuer))

            #expect(issuer.discoveryRequestCount == 1)
            let request = try #require(issuer.server.receivedRequests.first)
            #expect(request.method == "GET")
            #expect(request.path == "/.well-known/openid-configuration")
        }
    }

    // MARK: - Issuer binding

    @Test func issuerMismatchIsRefused() async throws {
        try await TestIssuer.with { issuer in
            issuer.discoveryIssuer = "https://attacker.example.com"
            let error = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            }
            #expect(error?.code == .discoveryIssuerMismatch)
            #expect(issuer.discoveryRequestCount == 1)
        }
    }

    /// The issuer must match exactly: a trailing `/` on either side is a mismatch.
    @Test func trailingSlashDifferenceIsAMismatch() async throws {
        try await TestIssuer.with { issuer in
            issuer.discoveryIssuer = issuer.issuer + "/"
            let documentHasSlash = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            }
            #expect(documentHasSlash?.code == .discoveryIssuerMismatch)

            issuer.discoveryIssuer = nil
            let requestHasSlash = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer + "/")
            }
            #expect(requestHasSlash?.code == .discoveryIssuerMismatch)
            #expect(issuer.discoveryRequestCount == 2)
        }
    }

    // MARK: - Validation

    @Test(arguments: requiredFields)
    func missingRequiredFieldIsRefused(field: String) async throws {
        try await TestIssuer.with { issuer in
            issuer.setDiscoveryMember(field, to: nil)
            let error = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            }
            #expect(error?.code == .invalidDiscoveryDocument)
        }
    }

    @Test(arguments: endpointFields)
    func plainHTTPEndpointInDocumentIsRefused(field: String) async throws {
        try await TestIssuer.with { issuer in
            issuer.setDiscoveryMember(field, to: .string("http://idp.example.com/\(field)"))
            let error = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            }
            #expect(error?.code == .insecureEndpoint)
        }
    }

    /// A plain-http, non-loopback issuer is refused before any request is made.
    @Test func plainHTTPIssuerIsRefused() async throws {
        let error = await #expect(throws: FederateError.self) {
            try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: "http://idp.example.com")
        }
        #expect(error?.code == .insecureEndpoint)
    }

    @Test(arguments: [404, 500, 503])
    func nonOKStatusFails(status: Int) async throws {
        try await TestIssuer.with { issuer in
            issuer.discoveryStatus = status
            let error = await #expect(throws: FederateError.self) {
                try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            }
            #expect(error?.code == .discoveryFailed)
            #expect(issuer.discoveryRequestCount == 1)
        }
    }

    // MARK: - Caching

    /// The document is fetched once per issuer: later and concurrent calls use the cache.
    @Test func metadataIsCached() async throws {
        try await TestIssuer.with { issuer in
            let client = DiscoveryClient(httpClient: PatientTransport.shared)
            let first = try await client.metadata(for: issuer.issuer)
            let second = try await client.metadata(for: issuer.issuer)
            #expect(first.jwksURI == second.jwksURI)
            #expect(issuer.discoveryRequestCount == 1)

            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { _ = try await client.metadata(for: issuer.issuer) }
                }
                try await group.waitForAll()
            }
            #expect(issuer.discoveryRequestCount == 1)
        }
    }

    /// Concurrent first calls on a cold cache (response delayed so they overlap) share one request.
    @Test func concurrentFirstCallsShareOneRequest() async throws {
        try await TestIssuer.with { issuer in
            let client = DiscoveryClient(httpClient: PatientTransport.shared)
            issuer.discoveryDelay = .milliseconds(200)
            let issuers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await client.metadata(for: issuer.issuer).issuer }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(issuers.count == 20)
            #expect(issuer.discoveryRequestCount == 1)
        }
    }

    // MARK: - Discovery URL (Discovery §4)

    /// An issuer with a path: the well-known suffix is appended to the whole issuer.
    @Test func issuerWithPathAppendsWellKnownSuffix() async throws {
        try await TestIssuer.with(issuerPath: "/tenants/acme") { issuer in
            #expect(issuer.issuer == issuer.baseURL + "/tenants/acme")
            #expect(
                ProviderMetadata.discoveryURL(forIssuer: issuer.issuer) == issuer.baseURL + "/tenants/acme/.well-known/openid-configuration"
            )

            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            #expect(metadata.issuer == issuer.issuer)
            #expect(issuer.server.requestCount(path: "/tenants/acme/.well-known/openid-configuration") == 1)
            #expect(issuer.server.requestCount == 1)
        }
    }

    /// An issuer ending in `/` (declared so by the document too): the `/` is dropped before the
    /// suffix, so there is no `//` in the discovery URL.
    @Test func issuerWithTrailingSlashDropsItInDiscoveryURL() async throws {
        try await TestIssuer.with(issuerPath: "/tenants/acme") { issuer in
            let slashed = issuer.issuer + "/"
            issuer.discoveryIssuer = slashed
            #expect(ProviderMetadata.discoveryURL(forIssuer: slashed) == issuer.discoveryURL)

            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: slashed)
            #expect(metadata.issuer == slashed)
            #expect(issuer.server.requestCount(path: "/tenants/acme/.well-known/openid-configuration") == 1)
            #expect(issuer.server.requestCount == 1)
        }
    }

    // MARK: - End to end

    /// DiscoveryClient → RemoteKeySet(jwks_uri) → IDTokenVerifier(policy from metadata).
    @Test func discoveryKeySetAndVerifierAcceptIssuerTokens() async throws {
        try await TestIssuer.with(issuerPath: "/realms/test") { issuer in
            let ecKey = issuer.addP256Key(keyID: "ec-1")
            let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer.issuer)
            let keys = try RemoteKeySet(url: metadata.jwksURI, httpClient: PatientTransport.shared)
            let verifier = IDTokenVerifier(
                policy: IDTokenPolicy(metadata: metadata, clientID: TestIssuer.defaultClientID),
                keys: keys
            )

            let rsa = try await verifier.verify(
                try issuer.idToken(claims: ["nonce": "n-1", "email": "a@example.com"]), expecting: .init(nonce: "n-1"))
            #expect(rsa.issuer == issuer.issuer)
            #expect(rsa.subject == "user-42")
            #expect(rsa.audiences == [TestIssuer.defaultClientID])
            #expect(rsa.algorithm == .rs256)
            #expect(rsa.keyID == "rsa-1")
            #expect(rsa.email == "a@example.com")

            let ec = try await verifier.verify(try issuer.idToken(key: ecKey))
            #expect(ec.algorithm == .es256)
            #expect(ec.keyID == "ec-1")

            // The policy comes from the metadata: other issuers, audiences, algorithms are refused.
            let wrongIssuer = await #expect(throws: FederateError.self) {
                try await verifier.verify(try issuer.idToken(claims: ["iss": .string(issuer.baseURL)]))
            }
            #expect(wrongIssuer?.code == .issuerMismatch)
            let wrongAudience = await #expect(throws: FederateError.self) {
                try await verifier.verify(try issuer.idToken(claims: ["aud": "another-client"]))
            }
            #expect(wrongAudience?.code == .audienceMismatch)
            let unadvertised = await #expect(throws: FederateError.self) {
                try await verifier.verify(try issuer.idToken(algorithm: .rs384))
            }
            #expect(unadvertised?.code == .disallowedAlgorithm)

            #expect(issuer.discoveryRequestCount == 1)
            #expect(issuer.jwksRequestCount == 1)
        }
    }
}
