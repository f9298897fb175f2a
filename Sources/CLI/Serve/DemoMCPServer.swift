import Federate
import FederateMCP
import MCP

/// `federate serve`'s MCP server at `/mcp` (Docs/MCP.md): two tools behind Federate, each with
/// its own scope, so a client sees both the 401 that starts its OAuth flow and the 403
/// `insufficient_scope` of a token without a tool's scope.
enum DemoMCPServer {
    /// The tools and the scope each needs.
    static let toolScopes: [String: OAuthScopes] = ["whoami": ["mcp:whoami"], "echo": ["mcp:echo"]]

    /// The protection: access tokens of `verifier` (for `metadata.resource`), Bearer only.
    static func protected(
        verifier: any TokenVerifier, metadata: ProtectedResourceMetadata
    ) throws(FederateError) -> ProtectedMCPServer {
        try ProtectedMCPServer(authenticator: CallerAuthenticator(verifier: verifier, resource: metadata), toolScopes: toolScopes) {
            caller in
            try await server(for: caller)
        }
    }

    /// A server for one verified caller.
    static func server(for caller: VerifiedToken) async throws -> Server {
        let server = Server(name: "federate-demo", version: "1.0.0", capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: [
                Tool(
                    name: "whoami", description: "Who the access token says you are (needs the scope mcp:whoami).",
                    inputSchema: .object(["type": "object", "properties": .object([:])])),
                Tool(
                    name: "echo", description: "Answers the text it is given (needs the scope mcp:echo).",
                    inputSchema: .object([
                        "type": "object", "properties": .object(["text": .object(["type": "string"])]), "required": .array(["text"]),
                    ])),
            ])
        }
        await server.withMethodHandler(CallTool.self) { call in
            switch call.name {
            case "whoami":
                let text = "\(caller.subject ?? "-") (client \(caller.clientID ?? "-"), scopes \(caller.scopes.description))"
                return CallTool.Result(content: [.text(text: text, annotations: nil, _meta: nil)])
            case "echo":
                return CallTool.Result(content: [.text(text: call.arguments?["text"]?.stringValue ?? "", annotations: nil, _meta: nil)])
            default:
                return CallTool.Result(content: [.text(text: "unknown tool", annotations: nil, _meta: nil)], isError: true)
            }
        }
        return server
    }
}
