import Federate
import FederateHummingbird
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// The RFC 7662 client and the API middleware against an introspection endpoint nobody here
/// wrote: django-oauth-toolkit (PyPI), run by `Tests/Interop/dot_introspection.py` on loopback
/// with tokens written into its database. Needs the interop venv (`Tests/Interop/venv.sh`); a
/// missing Python fails the test, never skips it.
@Suite("Interop: django-oauth-toolkit introspection", .serialized)
struct DOTIntrospectionInteropTests {
    /// Starts DOT with its tokens (`dot_introspection.py`) and waits until it answers; the
    /// runtime directory goes when the process is terminated by the caller.
    static func startDOT() async throws -> (process: InteractiveCLI, info: [String: JSONValue], runtime: URL) {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dot-introspection-\(UUID().uuidString)")
        let port = try FreePort.loopback()
        let op = try InteractiveCLI(
            executable: python, arguments: ["Tests/Interop/dot_introspection.py", "--port", String(port), "--runtime-dir", runtime.path],
            directory: root.path)
        let line = try #require(await op.nextLine(), "dot_introspection.py printed nothing")
        let info = try JSONParser().parseObject(Array(line.utf8))
        // runserver prints its banner on stderr only once it listens: poll until it answers.
        let issuer = try #require(info["issuer"]?.stringValue)
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? await PatientTransport.shared.send(Federate.HTTPRequest(url: issuer + "/.well-known/jwks.json"))) != nil { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        return (op, info, runtime)
    }

    @Test(.timeLimit(.minutes(20)))
    func introspectionAgainstDjangoOAuthToolkit() async throws {
        let (op, info, runtime) = try await Self.startDOT()
        defer { try? FileManager.default.removeItem(at: runtime) }
        let endpoint = try #require(info["introspection_endpoint"]?.stringValue)
        let clientID = try #require(info["client_id"]?.stringValue), secret = try #require(info["client_secret"]?.stringValue)
        let active = try #require(info["active"]?.stringValue)
        let expired = try #require(info["expired"]?.stringValue), revoked = try #require(info["revoked"]?.stringValue)

        let introspection = try IntrospectionClient(
            endpoint: endpoint, clientID: clientID, authentication: .clientSecretBasic(secret: secret), providerID: "oidc.dot",
            httpClient: PatientTransport.shared)
        let wrongSecret = try IntrospectionClient(
            endpoint: endpoint, clientID: clientID, authentication: .clientSecretBasic(secret: secret + "x"),
            httpClient: PatientTransport.shared)
        let caller = try await introspection.verify(active)
        #expect(caller.kind == .introspection && caller.clientID == clientID && caller.scopes.values == ["openid", "email"], "\(caller)")
        #expect(caller.claims["username"] == "alice" && caller.expiresAt != nil)
        for dead in [expired, revoked] {
            let error = await #expect(throws: FederateError.self) { try await introspection.verify(dead) }
            #expect(error?.code == .tokenInactive)
        }
        let failure = await #expect(throws: FederateError.self) { try await wrongSecret.verify(active) }
        #expect(failure?.code == .introspectionFailed)

        let router = Router(context: FederateContext.self)
        router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: introspection, requiredScopes: ["email"]))
            .get("whoami") { _, context in context.federate.caller?.clientID ?? "-" }
        router.group("admin").add(middleware: BearerAuthenticationMiddleware(verifier: introspection, requiredScopes: ["admin"]))
            .get { _, _ in "admin" }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer " + active]) { response in
                #expect(response.status.code == 200 && String(buffer: response.body) == clientID)
            }
            try await client.execute(uri: "/api/whoami", method: .get, headers: [.authorization: "Bearer " + revoked]) { response in
                #expect(response.status.code == 401 && response.headers[.wwwAuthenticate] == "Bearer error=\"invalid_token\"")
            }
            try await client.execute(uri: "/admin", method: .get, headers: [.authorization: "Bearer " + active]) { response in
                #expect(
                    response.status.code == 403
                        && response.headers[.wwwAuthenticate] == "Bearer error=\"insufficient_scope\", scope=\"admin\"")
            }
        }
        await op.terminate()
    }

    /// `federate serve --config` against DOT, whose discovery advertises no
    /// `introspection_endpoint`: refused at start without `api_access_tokens.introspection_endpoint`,
    /// and with it, DOT's own answers decide, and `required_scopes` refuses a token DOT granted
    /// fewer scopes with 403 `insufficient_scope`.
    @Test(.timeLimit(.minutes(20)))
    func serveIntrospectsAtTheConfiguredEndpointAndRequiresScopes() async throws {
        let (op, info, runtime) = try await Self.startDOT()
        defer { try? FileManager.default.removeItem(at: runtime) }
        let issuer = try #require(info["issuer"]?.stringValue), endpoint = try #require(info["introspection_endpoint"]?.stringValue)
        let clientID = try #require(info["client_id"]?.stringValue), secret = try #require(info["client_secret"]?.stringValue)
        let active = try #require(info["active"]?.stringValue), narrow = try #require(info["narrow"]?.stringValue)
        let revoked = try #require(info["revoked"]?.stringValue)
        let discovered = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: issuer)
        #expect(discovered.introspectionEndpoint == nil, "DOT now advertises introspection: this test no longer shows the key is needed")

        var access: [String: JSONValue] = [
            "provider": "dot", "resource": "https://api.dot.test", "method": "introspection", "client_id": .string(clientID),
            "client_secret_env": "DOT_SECRET",
        ]
        var object: [String: JSONValue] = [
            "api_access_tokens": .object(access),
            "providers": [
                [
                    "name": "dot", "type": "oidc", "issuer": .string(issuer), "client_id": .string(clientID),
                    "client_secret_env": "DOT_SECRET",
                ]
            ],
        ]
        let environment = ["DOT_SECRET": secret]
        let refused = try await ServeStartFailureTests.start(object, environment: environment)
        #expect(refused.status == 1 && refused.code == "endpoint_not_available", "\(refused)")

        access["introspection_endpoint"] = .string(endpoint)
        access["required_scopes"] = ["/api/whoami": "email"]
        object["api_access_tokens"] = .object(access)
        try await ServeAccessTokenTests.serve(object, environment: environment) { origin in
            var answer = try await ServeAPIContractsTests.get(origin, headers: [("Authorization", "Bearer " + active)])
            #expect(
                answer.status == 200 && answer.body["kind"] == "introspection" && answer.body["client_id"] == .string(clientID), "\(answer)"
            )
            #expect(answer.body["scope"] == "openid email" && answer.body["provider"] == "oidc.dot", "\(answer)")
            answer = try await ServeAPIContractsTests.get(origin, headers: [("Authorization", "Bearer " + narrow)])
            #expect(answer.status == 403 && answer.body["error"] == "insufficient_scope", "\(answer)")
            #expect(
                answer.challenges == [
                    "Bearer error=\"insufficient_scope\", scope=\"email\", resource_metadata=\"https://api.dot.test/.well-known/oauth-protected-resource\""
                ])
            answer = try await ServeAPIContractsTests.get(origin, headers: [("Authorization", "Bearer " + revoked)])
            #expect(
                answer.status == 401 && answer.body["error"] == "token_inactive"
                    && answer.challenges == [
                        "Bearer error=\"invalid_token\", resource_metadata=\"https://api.dot.test/.well-known/oauth-protected-resource\""
                    ])
            answer = try await ServeAPIContractsTests.get(origin, headers: [])
            // RFC 9728 §5.1: the bare challenge names where the API's metadata is.
            #expect(
                answer.status == 401
                    && answer.challenges == ["Bearer resource_metadata=\"https://api.dot.test/.well-known/oauth-protected-resource\""],
                "\(answer)")
        }
        await op.terminate()
    }
}
