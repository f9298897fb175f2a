import FederateTestSupport
import Foundation
import Synchronization
import Testing
import Federate
@testable import FederateRelyingParty
@testable import FederateTokens

/// The RFC 7662 client against a real loopback endpoint whose answers each test scripts:
/// strict reading, client authentication, the cache's lifetimes and bounds, single flight.
@Suite struct IntrospectionTests {
    /// RFC 7662 §2.2's example response.
    static let example = """
        {"active": true, "client_id": "l238j323ds-23ij4", "username": "jdoe", "scope": "read write dolphin",
         "sub": "Z5O3upPC88QrAjx00dis", "aud": "https://protected.example.net/resource", "iss": "https://server.example.com/",
         "exp": 1419356238, "iat": 1419350238, "extension_field": "twenty-seven"}
        """
    static let exampleNow = Date(timeIntervalSince1970: 1_419_350_238 + 60)

    /// Runs `body` with an endpoint answering `answer` (delayed by `delay`) and a client on `clock`.
    static func with(
        clock: TestClock = TestClock(exampleNow), cachePolicy: IntrospectionCachePolicy = IntrospectionCachePolicy(),
        delay: Duration? = nil,
        answer: @escaping @Sendable (TestHTTPRequest) -> TestHTTPResponse,
        _ body: (IntrospectionClient, LoopbackHTTPServer) async throws -> Void
    ) async throws {
        let server = try await LoopbackHTTPServer.start { request in
            var response = answer(request)
            response.delay = delay
            return response
        }
        defer { Task { try? await server.stop() } }
        let client = try IntrospectionClient(
            endpoint: server.baseURL + "/introspect", clientID: "rs-1", authentication: .clientSecretBasic(secret: "rs secret"),
            resource: "https://protected.example.net/resource", issuer: "https://server.example.com/", cachePolicy: cachePolicy,
            httpClient: PatientTransport.shared, clock: clock.clock)
        try await body(client, server)
    }

    @Test func theRFCExampleAdmitsItsCaller() async throws {
        try await Self.with(answer: { _ in .json(Self.example) }) { client, server in
            let caller = try await client.verify("mF_9.B5f-4.1JqM")
            #expect(caller.kind == .introspection && caller.subject == "Z5O3upPC88QrAjx00dis" && caller.clientID == "l238j323ds-23ij4")
            #expect(caller.scopes.values == ["read", "write", "dolphin"] && caller.claims["extension_field"] == "twenty-seven")
            let request = try #require(server.receivedRequests.first)
            #expect(
                request.method == "POST" && request.header("Authorization") == "Basic " + Data("rs-1:rs+secret".utf8).base64EncodedString())
            #expect(request.bodyString == "token=mF_9.B5f-4.1JqM&token_type_hint=access_token")
        }
    }

    @Test func aBrokenEndpointIsATypedFailureNeverAnActiveToken() async throws {
        let answers: [TestHTTPResponse] = [
            .json(#"{"active": "true", "sub": "x"}"#), .json(#"{"active": 1}"#), .json(#"{"sub": "x"}"#), .json("[true]"),
            .text("active=true"), .json(#"{"error": "invalid_client"}"#, status: 401), .status(500), .json(Self.example, status: 201),
        ]
        for answer in answers {
            try await Self.with(answer: { _ in answer }) { client, _ in
                let error = await #expect(throws: FederateError.self) { try await client.verify("t") }
                #expect(error?.code == .introspectionFailed, "\(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }

    @Test func anActiveAnswerStillHasToFitThisAPI() async throws {
        let cases: [(String, FederateError.Code)] = [
            (#"{"active": false}"#, .tokenInactive),
            (#"{"active": true, "exp": 1419350000}"#, .tokenExpired),
            (#"{"active": true, "nbf": 1419360000}"#, .notYetValid),
            (#"{"active": true, "iss": "https://evil.example/"}"#, .issuerMismatch),
            (#"{"active": true, "aud": ["https://other.example"]}"#, .audienceMismatch),
            (#"{"active": true, "scope": "read\twrite"}"#, .invalidClaim),
            (#"{"active": true, "scope": "read  write"}"#, .invalidClaim),
            (#"{"active": true, "exp": "1419356238"}"#, .invalidClaim),
            (#"{"active": true, "exp": 1e300}"#, .invalidClaim),
            (#"{"active": true, "aud": []}"#, .invalidClaim),
            (#"{"active": true, "cnf": {"jkt": "nope"}}"#, .tokenBindingMismatch),
            // Bound in ways this server cannot check: never a bearer token (RFC 8705, RFC 9449 §6.2).
            (#"{"active": true, "cnf": {"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}}"#, .tokenBindingMismatch),
            (#"{"active": true, "cnf": {"jwk": {"kty": "EC"}}}"#, .tokenBindingMismatch),
            (#"{"active": true, "cnf": {"something": "new"}}"#, .tokenBindingMismatch),
            (#"{"active": true, "cnf": "abc"}"#, .tokenBindingMismatch),
            (#"{"active": true, "token_type": "DPoP"}"#, .tokenBindingMismatch),
            (#"{"active": true, "token_type": "dpop"}"#, .tokenBindingMismatch),
        ]
        for (body, code) in cases {
            try await Self.with(answer: { _ in .json(body) }) { client, _ in
                let error = await #expect(throws: FederateError.self) { try await client.verify("t") }
                #expect(error?.code == code, "\(body)")
            }
        }
        try await Self.with(answer: { _ in .json(#"{"active": true}"#) }) { client, _ in
            let caller = try await client.verify("t")  // no aud, no iss: nothing to contradict
            #expect(caller.subject == nil && caller.scopes.isEmpty && caller.binding == .bearer)
        }
        let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        try await Self.with(answer: { _ in .json(#"{"active": true, "token_type": "DPoP", "cnf": {"jkt": "\#(jkt)"}}"#) }) { client, _ in
            let caller = try await client.verify("t")
            #expect(caller.binding == .dpop(thumbprint: jkt))
        }
    }

    @Test func activeAnswersLiveNoLongerThanTheTokenOrTheCeiling() async throws {
        let clock = TestClock(Self.exampleNow)
        // exp is 5 940 s away: the 60 s ceiling wins.
        try await Self.with(clock: clock, answer: { _ in .json(Self.example) }) { client, _ in
            for _ in 0..<5 { _ = try await client.verify("a") }
            #expect(client.endpointCalls == 1)
            clock.advance(by: .seconds(59))
            _ = try await client.verify("a")
            #expect(client.endpointCalls == 1)
            clock.advance(by: .seconds(2))
            _ = try await client.verify("a")
            #expect(client.endpointCalls == 2)
        }
        // exp is 10 s away: the token's end wins over the ceiling.
        let soon = TestClock(Date(timeIntervalSince1970: 1_419_356_228))
        try await Self.with(clock: soon, cachePolicy: .init(activeCeiling: .seconds(300)), answer: { _ in .json(Self.example) }) {
            client, _ in
            _ = try await client.introspect("b")
            soon.advance(by: .seconds(9))
            _ = try await client.introspect("b")
            #expect(client.endpointCalls == 1)
            soon.advance(by: .seconds(2))
            _ = try await client.introspect("b")
            #expect(client.endpointCalls == 2)
        }
    }

    @Test func inactiveAnswersAreCachedBrieflyAndFailuresNotAtAll() async throws {
        let clock = TestClock(Self.exampleNow)
        let status = Mutex(200)
        try await Self.with(
            clock: clock, cachePolicy: .init(inactiveLifetime: .seconds(5)),
            answer: { _ in status.withLock { $0 } == 200 ? .json(#"{"active": false}"#) : .status(503) }
        ) { client, _ in
            for _ in 0..<3 { #expect(try await client.introspect("dead").active == false) }
            #expect(client.endpointCalls == 1)
            clock.advance(by: .seconds(6))
            _ = try await client.introspect("dead")
            #expect(client.endpointCalls == 2)
            status.withLock { $0 = 503 }
            for _ in 0..<2 { await #expect(throws: FederateError.self) { try await client.introspect("other") } }
            #expect(client.endpointCalls == 4)
        }
    }

    @Test func concurrentVerificationsOfOneTokenShareOneCall() async throws {
        try await Self.with(delay: .milliseconds(200), answer: { _ in .json(Self.example) }) { client, server in
            try await withThrowingTaskGroup(of: VerifiedToken.self) { group in
                for _ in 0..<20 { group.addTask { try await client.verify("same") } }
                for try await caller in group { #expect(caller.subject == "Z5O3upPC88QrAjx00dis") }
            }
            #expect(client.endpointCalls == 1 && server.requestCount == 1)
        }
    }

    @Test func theCacheIsBoundedAndKeyedByHash() async throws {
        try await Self.with(cachePolicy: .init(maximumEntries: 8), answer: { _ in .json(Self.example) }) { client, _ in
            #expect(
                IntrospectionCache.key(for: "x") == IntrospectionCache.key(for: "x")
                    && IntrospectionCache.key(for: "x") != IntrospectionCache.key(for: "y"))
            for index in 0..<50 { _ = try await client.introspect("token-\(index)") }
            #expect(client.endpointCalls == 50)
        }
        let cache = IntrospectionCache(clock: .system, maximumEntries: 8)
        let response = try IntrospectionResponse(json: Array(Self.example.utf8))
        for index in 0..<50 {
            _ = await cache.value(
                for: IntrospectionCache.key(for: "t\(index)"), fetch: { .success(response) }, lifetime: { _ in .seconds(60) })
            #expect(cache.count <= 8)
        }
    }

    @Test func discoveryNamesTheEndpoint() throws {
        let metadata = try ProviderMetadata(
            document: Array(
                #"""
                {"issuer": "https://as.example", "authorization_endpoint": "https://as.example/a", "token_endpoint": "https://as.example/t",
                 "jwks_uri": "https://as.example/k", "response_types_supported": ["code"], "subject_types_supported": ["public"],
                 "id_token_signing_alg_values_supported": ["RS256"], "introspection_endpoint": "https://as.example/i"}
                """#.utf8), expectedIssuer: "https://as.example")
        let client = try IntrospectionClient(
            metadata: metadata, clientID: "rs", authentication: .clientSecretPost(secret: "s"), httpClient: PatientTransport.shared)
        #expect(client.endpoint == "https://as.example/i" && client.issuer == "https://as.example")
        #expect(throws: FederateError.self) {
            try IntrospectionClient(
                endpoint: "http://as.example/i", clientID: "rs", authentication: .none, httpClient: PatientTransport.shared)
        }
    }
}
