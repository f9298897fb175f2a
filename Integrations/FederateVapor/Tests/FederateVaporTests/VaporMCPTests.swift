import Federate
import FederateDevProvider
import FederateMCP
import FederateOIDC
import FederateVapor
import Foundation
import MCP
import Testing
import Vapor
import VaporTesting

/// An MCP server behind Federate on Vapor: `ProtectedMCPServer.routes` mounted by FederateVapor's
/// `ServerRoutes`, with the dev provider's real access tokens. The same answers as on Hummingbird
/// (`MCPServerTests`): the 401 naming the RFC 9728 metadata, the tool for the token's subject,
/// 403 for a tool whose scope the token lacks, the metadata at its exact path only.
@Suite("Vapor: an MCP server behind Federate", .serialized)
struct VaporMCPTests {
    static let resource = testOrigin + "/mcp"

    static func call(_ tool: String) -> String {
        #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\#(tool)","arguments":{}}}"#
    }

    @Test func theMCPServerAnswersOnVaporAsOnHummingbird() async throws {
        try await withFederateApp { app, _, providers in
            let dev = providers[0]
            let client = try await OIDCProvider(
                id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
                cache: ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
            ).client()
            let metadata = try ProtectedResourceMetadata(
                resource: Self.resource, authorizationServers: [dev.issuer], scopesSupported: ["mcp:whoami", "mcp:echo"])
            let mcp = try ProtectedMCPServer(
                authenticator: CallerAuthenticator(
                    verifier: client.accessTokenVerifier(resource: Self.resource, providerID: "oidc.dev"), resource: metadata),
                toolScopes: ["whoami": ["mcp:whoami"], "echo": ["mcp:echo"]]
            ) { caller in
                let server = Server(name: "test", version: "1", capabilities: .init(tools: .init()))
                await server.withMethodHandler(CallTool.self) { call in
                    CallTool.Result(content: [.text(text: "\(call.name) for \(caller.subject ?? "-")", annotations: nil, _meta: nil)])
                }
                return server
            }
            try app.register(collection: ServerRoutes(mcp.routes, owner: "the MCP server"))
            let browser = TestBrowser(app: app)
            let headers = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")]

            // An anonymous client sending 2 MiB: 401, the body never read (not 413 after reading it).
            let flood = try await browser.send(.POST, "/mcp", headers: headers, body: String(repeating: "x", count: 2 << 20))
            #expect(flood.status == 401, "\(flood.status)")

            // No token: 401 naming the metadata, which answers at its exact path only.
            let bare = try await browser.send(.POST, "/mcp", headers: headers, body: Self.call("whoami"))
            #expect(bare.status == 401)
            #expect(
                bare.headers("WWW-Authenticate") == ["Bearer resource_metadata=\"\(testOrigin)/.well-known/oauth-protected-resource/mcp\""])
            let document = try await browser.send(.GET, "/.well-known/oauth-protected-resource/mcp")
            #expect(document.status == 200 && document.json["resource"]?.stringValue == Self.resource)
            #expect(try await browser.send(.GET, "/.well-known/oauth-protected-resource/mcp/").status == 404)

            // A token with mcp:whoami: the tool runs for alice; echo needs its own scope (403).
            let token = try await VaporAPITests.accessToken(from: dev, resource: Self.resource, scopes: ["mcp:whoami"])
            let authorized = headers + [("Authorization", "Bearer " + token)]
            let whoami = try await browser.send(.POST, "/mcp", headers: authorized, body: Self.call("whoami"))
            #expect(whoami.status == 200 && whoami.text.contains("whoami for alice"), "\(whoami.text)")
            let echo = try await browser.send(.POST, "/mcp", headers: authorized, body: Self.call("echo"))
            #expect(echo.status == 403 && echo.headers("WWW-Authenticate").first?.contains("insufficient_scope") == true)

            // A route of the MCP server that overlaps one the application has: refused, naming both.
            #expect(throws: FederateError.self) { try app.register(collection: ServerRoutes(mcp.routes, owner: "the MCP server")) }
        }
    }
}
