import Federate
import FederateDevProvider
import FederateTestSupport
import Foundation
import Testing
@testable import FederateRelyingParty

#if canImport(Glibc)
    import Glibc
#endif

/// `federate serve`'s API with `"api_access_tokens"`: the dev provider's access tokens for the
/// configured resource are accepted beside its ID tokens, verified locally (`jwt`) or by
/// introspection, and a configuration it cannot honour is refused at start.
@Suite("federate serve access tokens")
struct ServeAccessTokenTests {
    static let resource = "https://api.serve.test"

    /// Runs `federate serve` with `object` (plus a store in a fresh directory) and `body` with its origin.
    static func serve(_ object: [String: JSONValue], environment: [String: String], _ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-at-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var object = object
        object["store"] = ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)]
        let config = directory.appendingPathComponent("serve.json")
        try Data(JSONSerializer.bytes(.object(object))).write(to: config)
        let port = try FreePort.loopback()
        let serve = try InteractiveCLI(
            executable: CLIProcess.executablePath, arguments: ["serve", "--config", config.path, "--port", String(port)],
            directory: directory.path, environment: environment)
        let line = try #require(await serve.nextLine())
        #expect(line.contains("\"url\""), "\(line)")
        try await body("http://127.0.0.1:\(port)")
        let end = await serve.send(signal: SIGTERM)
        #expect(end.exited && end.status == 0)
    }

    static func whoami(_ origin: String, _ token: String) async throws -> (Int, [String: JSONValue]) {
        let response = try await PatientTransport.shared.send(
            HTTPRequest(url: origin + "/api/whoami", headers: [("Authorization", "Bearer " + token)]))
        return (response.status, (try? JSONParser().parseObject(response.body)) ?? [:])
    }

    @Test(.timeLimit(.minutes(3)), arguments: ["jwt", "introspection"])
    func theAPITakesAccessTokensAsConfigured(method: String) async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let forAPI = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource)
        let forOther = try await AccessTokenMiddlewareTests.tokens(provider, resource: "https://other.serve.test")
        let object: [String: JSONValue] = [
            "api_bearer_provider": "corp",
            "api_access_tokens": ["provider": "corp", "resource": .string(Self.resource), "method": .string(method)],
            "providers": [
                [
                    "name": "corp", "type": "oidc", "issuer": .string(provider.issuer), "client_id": "dev-client",
                    "client_secret_env": "CORP_SECRET",
                ]
            ],
        ]
        try await Self.serve(object, environment: ["CORP_SECRET": "dev-secret"]) { origin in
            var (status, body) = try await Self.whoami(origin, forAPI.accessToken)
            #expect(status == 200 && body["sub"] == "alice" && body["provider"] == "oidc.corp", "\(body)")
            #expect(body["kind"] == .string(method == "jwt" ? "access_token" : "introspection") && body["client_id"] == "dev-client")
            #expect(body["scope"] == "openid email orders:read")
            (status, body) = try await Self.whoami(origin, try #require(forAPI.idToken))
            #expect(status == 200 && body["kind"] == "id_token" && body["sub"] == "alice" && body["scope"] == nil, "\(body)")
            (status, body) = try await Self.whoami(origin, forOther.accessToken)
            #expect(status == 401 && body["error"] == "audience_mismatch", "\(body)")
        }
    }

    /// With `"dpop": true`, a DPoP-bound token from the provider works with its proof, once;
    /// as a bearer token, or with its proof replayed, it does not.
    @Test(.timeLimit(.minutes(3)))
    func theAPITakesDPoPBoundTokensWhenConfigured() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let signer = DPoPProofSigner()
        let client = try await AccessTokenMiddlewareTests.client(provider).withDPoP(signer).withResources([Self.resource])
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback", scopes: ["openid", "orders:read"])
        let redirect = try await PatientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        let tokens = try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
        #expect(tokens.isDPoPBound)
        let object: [String: JSONValue] = [
            "api_access_tokens": ["provider": "corp", "resource": .string(Self.resource), "method": "jwt", "dpop": true],
            "providers": [
                [
                    "name": "corp", "type": "oidc", "issuer": .string(provider.issuer), "client_id": "dev-client",
                    "client_secret_env": "CORP_SECRET",
                ]
            ],
        ]
        try await Self.serve(object, environment: ["CORP_SECRET": "dev-secret"]) { origin in
            let request = try await AccessTokenHolder(client: client, tokens: tokens).authorize(
                Federate.HTTPRequest(url: origin + "/api/whoami"))
            let response = try await PatientTransport.shared.send(request)
            let body = (try? JSONParser().parseObject(response.body)) ?? [:]
            #expect(response.status == 200 && body["sub"] == "alice" && body["dpop_jkt"] == .string(signer.thumbprint), "\(body)")
            let replayed = try await PatientTransport.shared.send(request)
            #expect(replayed.status == 401 && (try? JSONParser().parseObject(replayed.body))?["error"] == "dpop_proof_replayed")
            // One challenge per scheme; the error goes on DPoP's, the scheme the request used.
            let challenges = replayed.headers.filter { $0.name.caseInsensitiveEquals("WWW-Authenticate") }.map(\.value)
            let metadata = "resource_metadata=\"\(Self.resource)/.well-known/oauth-protected-resource\""
            #expect(challenges.first == "Bearer " + metadata && challenges.count == 2, "\(challenges)")
            #expect(
                challenges.last?.hasPrefix("DPoP algs=\"ES256") == true
                    && challenges.last?.hasSuffix(", error=\"invalid_dpop_proof\", " + metadata) == true)
            let (status, asBearer) = try await Self.whoami(origin, tokens.accessToken)
            #expect(status == 401 && asBearer["error"] == "token_binding_mismatch", "\(asBearer)")
        }
    }

    /// A token bound to a certificate (RFC 8705 `cnf.x5t#S256`), to a `jwk`, to anything but
    /// `cnf.jkt` alone, or to a DPoP key (`cnf.jkt`, or an introspected `token_type` `DPoP`),
    /// is never taken as `Authorization: Bearer`: 401 `token_binding_mismatch`. Only an
    /// unbound token is a bearer token, verified locally or by introspection.
    @Test(.timeLimit(.minutes(3)))
    func aBoundTokenIsNeverABearerToken() async throws {
        let issuer = try await TestIssuer.start()
        defer { Task { try? await issuer.stop() } }
        let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        let x5t = "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"
        // Introspection answers by token: the authorization server vouches for each, with its binding.
        let answers: [String: String] = [
            "opaque-plain": #"{"active": true, "sub": "alice", "client_id": "app", "token_type": "Bearer"}"#,
            "opaque-mtls": #"{"active": true, "sub": "alice", "client_id": "app", "cnf": {"x5t#S256": "\#(x5t)"}}"#,
            "opaque-dpop-type": #"{"active": true, "sub": "alice", "client_id": "app", "token_type": "DPoP"}"#,
            "opaque-jkt": #"{"active": true, "sub": "alice", "client_id": "app", "token_type": "DPoP", "cnf": {"jkt": "\#(jkt)"}}"#,
        ]
        let introspection = try await LoopbackHTTPServer.start { request in
            let token = (try? FormURLEncoding.decode(request.bodyString))?["token"] ?? ""
            return .json(answers[token] ?? #"{"active": false}"#)
        }
        defer { Task { try? await introspection.stop() } }
        issuer.setDiscoveryMember("introspection_endpoint", to: .string(introspection.baseURL + "/introspect"))
        let now = Int64(Date().timeIntervalSince1970)
        func accessToken(_ cnf: JSONValue?) throws -> String {
            var claims: [String: JSONValue] = [
                "iss": .string(issuer.issuer), "sub": "alice", "aud": .string(Self.resource), "iat": .integer(now),
                "exp": .integer(now + 600),
                "client_id": "app", "jti": .string(UUID().uuidString),
            ]
            claims["cnf"] = cnf
            return try #require(issuer.signingKey).sign(claims: claims, algorithm: .rs256, header: ["typ": "at+jwt"])
        }
        let provider: JSONValue = [
            "name": "corp", "type": "oidc", "issuer": .string(issuer.issuer), "client_id": "api", "client_secret_env": "CORP_SECRET",
        ]
        let jwt: [String: JSONValue] = [
            "api_access_tokens": ["provider": "corp", "resource": .string(Self.resource), "method": "jwt"], "providers": [provider],
        ]
        try await Self.serve(jwt, environment: ["CORP_SECRET": "secret"]) { origin in
            var (status, body) = try await Self.whoami(origin, try accessToken(nil))
            #expect(status == 200 && body["sub"] == "alice", "\(body)")
            let bound: [JSONValue] = [
                ["x5t#S256": .string(x5t)], ["jwk": ["kty": "EC", "crv": "P-256", "x": "a", "y": "b"]], ["jkt": .string(jkt)],
                ["jkt": .string(jkt), "x5t#S256": .string(x5t)], ["unknown": "x"], [:], "not-an-object",
            ]
            for cnf in bound {
                (status, body) = try await Self.whoami(origin, try accessToken(cnf))
                #expect(status == 401 && body["error"] == "token_binding_mismatch", "\(cnf): \(body)")
            }
        }
        let introspected: [String: JSONValue] = [
            "api_access_tokens": ["provider": "corp", "resource": .string(Self.resource), "method": "introspection"],
            "providers": [provider],
        ]
        try await Self.serve(introspected, environment: ["CORP_SECRET": "secret"]) { origin in
            var (status, body) = try await Self.whoami(origin, "opaque-plain")
            #expect(status == 200 && body["kind"] == "introspection" && body["sub"] == "alice", "\(body)")
            for token in ["opaque-mtls", "opaque-dpop-type", "opaque-jkt"] {
                (status, body) = try await Self.whoami(origin, token)
                #expect(status == 401 && body["error"] == "token_binding_mismatch", "\(token): \(body)")
            }
        }
    }

    @Test(
        .timeLimit(.minutes(2)),
        arguments: [
            JSONValue.string("jwt"),
            ["provider": "dev", "resource": "https://api", "method": "jwt", "dpop": "yes"],
            ["provider": "nowhere", "resource": "https://api", "method": "jwt"],
            ["provider": "dev", "resource": "https://api", "method": "opaque"],
            ["provider": "dev", "method": "jwt"],
            ["provider": "apple-dev", "resource": "https://api", "method": "jwt"],
            ["provider": "dev", "resource": "https://api", "method": "introspection", "cache_seconds": -1],
        ])
    func aConfigurationItCannotHonourIsRefused(value: JSONValue) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("federate-at-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("serve.json")
        let object: JSONValue = [
            "store": ["sqlite": .string(directory.appendingPathComponent("accounts.sqlite").path)],
            "api_access_tokens": value,
            "providers": [["name": "dev", "type": "dev"], ["name": "apple-dev", "type": "dev", "flavor": "apple"]],
        ]
        try Data(JSONSerializer.bytes(object)).write(to: config)
        let output = await ExternalProcess.run(
            [CLIProcess.executablePath, "serve", "--config", config.path, "--port", "0"], in: directory, timeout: 30)
        #expect(!output.timedOut && output.status == 1)
        #expect(try JSONParser().parseObject(Array(output.stdout.utf8))["error"] == "invalid_configuration", "\(output.stdout)")
    }
}
