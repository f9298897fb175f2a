import Federate
import FederateDevProvider
import FederateHummingbird
import FederateMCP
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import MCP
import Testing

/// FederateMCP's protection of a Swift MCP server, over Hummingbird, with the dev provider's
/// real access tokens: the 401 that names the RFC 9728 metadata, audience-bound tokens, scopes
/// per tool, and the messages that never reach the SDK (a body the strict parser refuses, a
/// batch, a tool not listed, a foreign `Origin`) — so the tool whose scope was checked is the
/// tool that runs.
@Suite("MCP server behind Federate")
struct MCPServerTests {
    static let resource = "http://127.0.0.1:8080/mcp"

    static func application(_ provider: DevProvider) async throws -> some ApplicationProtocol {
        let client = try await AccessTokenMiddlewareTests.client(provider)
        let metadata = try ProtectedResourceMetadata(
            resource: resource, authorizationServers: [provider.issuer], scopesSupported: ["mcp:echo", "mcp:whoami"])
        let server = try ProtectedMCPServer(
            authenticator: CallerAuthenticator(
                verifier: client.accessTokenVerifier(resource: resource, providerID: "oidc.dev"), resource: metadata),
            toolScopes: ["whoami": ["mcp:whoami"], "echo": ["mcp:echo"]]
        ) { caller in
            let server = Server(name: "test", version: "1", capabilities: .init(tools: .init()))
            await server.withMethodHandler(CallTool.self) { call in
                CallTool.Result(content: [.text(text: "\(call.name) for \(caller.subject ?? "-")", annotations: nil, _meta: nil)])
            }
            return server
        }
        let router = Router(context: FederateContext.self)
        try ServerRoutes<FederateContext>(server.routes, owner: "the MCP server").register(on: router)
        return Application(router: router)
    }

    static func post(
        _ client: some TestClientProtocol, _ body: String, token: String?, origin: String? = nil
    ) async throws -> (status: Int, body: String, challenges: [String]) {
        var headers: HTTPFields = [.accept: "application/json, text/event-stream", .contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer " + token }
        if let origin { headers[.origin] = origin }
        return try await client.execute(uri: "/mcp", method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            (response.status.code, String(buffer: response.body), response.headers[values: .wwwAuthenticate])
        }
    }

    static func call(_ tool: String) -> String {
        #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\#(tool)","arguments":{}}}"#
    }

    /// The token is checked before the body is read: an anonymous client sending 2 MiB gets
    /// 401 (not 413 after the server read a megabyte); the metadata answers its exact path only.
    @Test func theTokenIsCheckedBeforeTheBodyAndTheMetadataAtItsExactPath() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let token = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource, scopes: ["mcp:echo"]).accessToken
        try await Self.application(provider).test(.router) { http in
            let huge = String(repeating: " ", count: 2 << 20)
            #expect(try await Self.post(http, huge, token: nil).status == 401)
            #expect(try await Self.post(http, huge, token: token).status == 413)
            for path in ["/.well-known/oauth-protected-resource/mcp/", "/.well-known/oauth-protected-resource//mcp"] {
                let status = try await http.execute(uri: path, method: .get) { $0.status.code }
                #expect(status == 404, "\(path): \(status)")
            }
            #expect(try await http.execute(uri: "/.well-known/oauth-protected-resource/mcp", method: .get) { $0.status.code } == 200)
        }
    }

    @Test func toolsNeedATokenForThisServerWithTheirScope() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let echoOnly = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource, scopes: ["mcp:echo"]).accessToken
        let both = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource, scopes: ["mcp:echo", "mcp:whoami"])
            .accessToken
        let elsewhere = try await AccessTokenMiddlewareTests.tokens(provider, resource: "https://other.example/mcp", scopes: ["mcp:whoami"])
            .accessToken
        let metadataURL = "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        try await Self.application(provider).test(.router) { http in
            var answer = try await Self.post(http, Self.call("whoami"), token: nil)
            #expect(answer.status == 401 && answer.challenges == ["Bearer resource_metadata=\"\(metadataURL)\""])
            let document = try await http.execute(uri: "/.well-known/oauth-protected-resource/mcp", method: .get) {
                String(buffer: $0.body)
            }
            #expect(try JSONParser().parseObject(Array(document.utf8))["resource"] == .string(Self.resource))

            answer = try await Self.post(http, Self.call("whoami"), token: elsewhere)
            #expect(answer.status == 401 && answer.body.contains("audience_mismatch"))
            #expect(answer.challenges == ["Bearer error=\"invalid_token\", resource_metadata=\"\(metadataURL)\""])

            answer = try await Self.post(http, Self.call("whoami"), token: echoOnly)
            #expect(
                answer.status == 403
                    && answer.challenges == [
                        "Bearer error=\"insufficient_scope\", scope=\"mcp:whoami\", resource_metadata=\"\(metadataURL)\""
                    ])
            answer = try await Self.post(http, Self.call("echo"), token: echoOnly)
            #expect(answer.status == 200 && answer.body.contains("echo for alice"), "\(answer.body)")
            answer = try await Self.post(http, Self.call("whoami"), token: both)
            #expect(answer.status == 200 && answer.body.contains("whoami for alice"), "\(answer.body)")
        }
    }

    @Test func messagesTheGateRefusesNeverReachTheSDK() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let echoOnly = try await AccessTokenMiddlewareTests.tokens(provider, resource: Self.resource, scopes: ["mcp:echo"]).accessToken
        try await Self.application(provider).test(.router) { http in
            // Two `name` members: the SDK's decoder would keep the last ("whoami"), after a check of the first.
            var answer = try await Self.post(
                http, #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},"name":"whoami"}}"#,
                token: echoOnly)
            #expect(answer.status == 400 && answer.body.contains("-32700") && !answer.body.contains("whoami for"), "\(answer.body)")
            // A batch carrying a call the scope check would have to find.
            answer = try await Self.post(http, "[" + Self.call("echo") + "," + Self.call("whoami") + "]", token: echoOnly)
            #expect(answer.status == 400 && answer.body.contains("-32600"), "\(answer.body)")
            // A tool not listed byte for byte: answered here, as an unknown tool.
            answer = try await Self.post(http, Self.call("whoami "), token: echoOnly)
            #expect(answer.status == 200 && answer.body.contains("-32602") && answer.body.contains("\"id\":3"), "\(answer.body)")
            // Another site's page calling through the browser (DNS rebinding).
            answer = try await Self.post(http, Self.call("echo"), token: echoOnly, origin: "https://evil.example")
            #expect(answer.status == 403, "\(answer.body)")
            answer = try await Self.post(http, Self.call("echo"), token: echoOnly, origin: "http://127.0.0.1:8080")
            #expect(answer.status == 200, "\(answer.body)")
        }
    }

    @Test func theConfigurationIsChecked() throws {
        let verifier = RefusingVerifier()
        #expect(throws: FederateError.self) {
            try ProtectedMCPServer(authenticator: CallerAuthenticator(verifier: verifier), toolScopes: [:]) { _ in fatalError() }
        }
        let metadata = try ProtectedResourceMetadata(resource: Self.resource, authorizationServers: ["http://127.0.0.1:9000"])
        #expect(throws: FederateError.self) {
            try ProtectedMCPServer(
                authenticator: CallerAuthenticator(verifier: verifier, resource: metadata), toolScopes: ["caf\u{E9}": []]
            ) { _ in fatalError() }
        }
    }
}
