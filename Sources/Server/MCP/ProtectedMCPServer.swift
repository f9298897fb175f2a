public import Federate
public import FederateServer
import Foundation
import HTTPTypes
public import MCP

/// An MCP server (modelcontextprotocol/swift-sdk's `Server`) behind Federate, as the MCP
/// authorization specification asks of a protected MCP server:
///
/// - every request needs an access token issued for this server — its `aud` the resource of
///   `ProtectedResourceMetadata` (RFC 8707), so a token minted for another API is refused —
///   verified by the `CallerAuthenticator` it is given (Bearer, or DPoP-bound);
/// - a request without one gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, the
///   RFC 9728 document a client follows to the authorization server;
/// - each tool names the scopes a `tools/call` of it needs: a token without them gets 403
///   `insufficient_scope` naming them, so a client can ask for more (step-up);
/// - a session of the streamable HTTP transport is never shared: each request is handled by a
///   `Server` made for its verified caller (`server(caller)`), on a stateless transport.
///
/// ```swift
/// let mcp = try ProtectedMCPServer(
///     authenticator: CallerAuthenticator(verifier: accessTokens, resource: metadata),
///     toolScopes: ["whoami": ["mcp:whoami"], "echo": ["mcp:echo"]]) { caller in
///         let server = Server(name: "orders", version: "1.0", capabilities: .init(tools: .init()))
///         await server.withMethodHandler(ListTools.self) { _ in … }
///         await server.withMethodHandler(CallTool.self) { call in … caller.subject … }
///         return server
///     }
/// // POST/GET/DELETE /mcp and its metadata, on either integration:
/// try ServerRoutes<FederateContext>(mcp.routes, owner: "the MCP server").register(on: router)   // Hummingbird
/// try app.register(collection: ServerRoutes(mcp.routes, owner: "the MCP server"))              // Vapor
/// ```
///
/// Before the SDK reads a request, its JSON-RPC message is read with Federate's strict parser:
/// a body it refuses (duplicate members, invalid UTF-8, nesting past its limits), a batch, or a
/// `tools/call` of a tool not listed byte for byte in `toolScopes` is answered here and never
/// reaches the SDK, so the tool whose scopes were checked is the tool that runs.
public struct ProtectedMCPServer: Sendable {
    /// Authenticates every request; its `resource` is the MCP server's metadata.
    package let authenticator: CallerAuthenticator
    /// Every tool the server has, by exact name, with the scopes a call of it needs.
    package let toolScopes: [String: OAuthScopes]
    /// The RFC 9728 metadata of the MCP server.
    package var metadata: ProtectedResourceMetadata { resource }

    private let resource: ProtectedResourceMetadata
    private let tools: [ExactString: OAuthScopes]
    private let makeServer: @Sendable (VerifiedToken) async throws -> Server
    private let allowedOrigins: [String]

    /// The largest request body read (1 MiB).
    package static let maximumBodyBytes = 1 << 20

    /// Creates the protected server. `invalid_configuration` when the authenticator has no
    /// `resource` (the MCP specification requires the metadata), or a tool name is not 1–128 of
    /// `A-Z a-z 0-9 _ - .` (the MCP specification's tool names). Browsers may call it from
    /// `allowedOrigins` (default: the resource's origin); a request with another `Origin` is
    /// refused 403 (DNS rebinding protection).
    public init(
        authenticator: CallerAuthenticator, toolScopes: [String: OAuthScopes], allowedOrigins: [String]? = nil,
        server: @escaping @Sendable (VerifiedToken) async throws -> Server
    ) throws(FederateError) {
        guard let resource = authenticator.resource else {
            throw FederateError(
                .invalidConfiguration, "an MCP server publishes its protected resource metadata: give the authenticator a resource")
        }
        var tools: [ExactString: OAuthScopes] = [:]
        for (name, scopes) in toolScopes {
            guard Self.isToolName(name) else {
                throw FederateError(.invalidConfiguration, "a tool name is 1-128 of A-Z a-z 0-9 _ - . (the MCP specification)")
            }
            tools[ExactString(name)] = scopes
        }
        self.authenticator = authenticator
        self.toolScopes = toolScopes
        self.resource = resource
        self.tools = tools
        self.makeServer = server
        self.allowedOrigins = allowedOrigins ?? [ProtectedResourceMetadata.origin(of: resource.resource)]
    }

    /// The routes an integration mounts (`ServerRoutes` of FederateHummingbird or FederateVapor):
    /// `POST`, `GET` and `DELETE` at the MCP endpoint (the path of the resource identifier,
    /// `/mcp` for `https://api.example.com/mcp`), and `GET` of its RFC 9728 metadata at
    /// `/.well-known/oauth-protected-resource` plus that path, answered at its exact path only
    /// (not `…/mcp/`, `…//mcp` or `…/%6dcp`, which a router may also match).
    ///
    /// A resource that is a bare origin (`https://mcp.example`) has its endpoint at `/`: there only
    /// `POST` and `DELETE` are mounted, so `GET /` stays the site's (the stateless transport
    /// answers `GET` with 405 anyway, which a client reads as "no event stream").
    public var routes: [ServerRoute] {
        let server = self
        let metadata = resource.response, metadataPath = resource.metadataPath
        let path = ProtectedResourceMetadata.path(of: resource.resource)
        let components = path.split(separator: "/").map(String.init)
        var routes = [
            ServerRoute(.get, metadataPath.split(separator: "/").map(String.init)) { request, _, _ in
                request.path.utf8.elementsEqual(metadataPath.utf8) ? metadata : ServerResponse(status: .notFound)
            }
        ]
        let methods: [HTTPTypes.HTTPRequest.Method] = components.isEmpty ? [.post, .delete] : [.post, .get, .delete]
        for method in methods {
            // The token is verified before the body is read.
            routes.append(
                ServerRoute.reading(method, components, bodyLimit: method == .post ? Self.maximumBodyBytes : nil) { request, _, body in
                    await server.respond(to: request, body: body)
                })
        }
        return routes
    }

    /// Answers one HTTP request to the MCP endpoint (`POST` a JSON-RPC message; `GET` and
    /// `DELETE` are 405 on the stateless transport). `body` reads its content, at most
    /// ``maximumBodyBytes``, and is called only once the token was verified: an anonymous
    /// client never makes the server read a megabyte.
    package func respond(to request: ServerRequest, body readBody: () async throws -> [UInt8]) async -> ServerResponse {
        let authenticated: AuthenticatedCaller
        do {
            authenticated = try await authenticator.authenticate(request)
        } catch {
            return error.serverResponse
        }
        let body: [UInt8]
        do {
            body = try await readBody()
        } catch {
            return Self.rpcError(status: .contentTooLarge, code: -32600, "the message is larger than 1 MiB", id: .null)
        }
        var response: ServerResponse
        if let refusal = gate(request, body: body, caller: authenticated.caller) {
            response = refusal
        } else {
            response = await forward(request, body: body, caller: authenticated.caller)
        }
        for field in authenticated.responseFields { response.headers.append(field) }
        return response
    }

    /// The answer to a message that must not reach the SDK, or `nil` to hand it on.
    func gate(_ request: ServerRequest, body: [UInt8], caller: VerifiedToken) -> ServerResponse? {
        if let origin = request.headers[.origin], !allowedOrigins.contains(where: { $0.utf8.elementsEqual(origin.utf8) }) {
            return Self.rpcError(status: .forbidden, code: -32600, "this origin may not call the MCP server", id: .null)
        }
        guard request.method == .post else { return nil }
        guard body.count <= Self.maximumBodyBytes else {
            return Self.rpcError(status: .contentTooLarge, code: -32600, "the message is larger than 1 MiB", id: .null)
        }
        let message: JSONValue
        do {
            message = try JSONParser().parse(body)
        } catch {
            return Self.rpcError(status: .badRequest, code: -32700, "the body is not one strict JSON document", id: .null)
        }
        guard case .object(let members) = message else {
            return Self.rpcError(status: .badRequest, code: -32600, "send one JSON-RPC message, not a batch", id: .null)
        }
        guard members["method"]?.stringValue == CallTool.name else { return nil }
        let id = members["id"] ?? .null
        guard let name = members["params"]?["name"]?.stringValue, let scopes = tools[ExactString(name)] else {
            return Self.rpcError(status: .ok, code: -32602, "unknown tool", id: id)
        }
        do {
            try BearerChallenge.requireScopes(scopes, of: caller, presentations: authenticator.presentations, resource: resource)
        } catch {
            return error.serverResponse
        }
        return nil
    }

    /// Hands the message to a `Server` made for `caller`, on a transport of its own.
    private func forward(_ request: ServerRequest, body: [UInt8], caller: VerifiedToken) async -> ServerResponse {
        // `Origin` was checked by `gate(_:body:caller:)`, against the resource's origin rather than
        // the SDK's localhost-only default; the transport checks the rest of the message's framing.
        let transport = StatelessHTTPServerTransport(
            validationPipeline: StandardValidationPipeline(validators: [
                OriginValidator.disabled, AcceptHeaderValidator(mode: .jsonOnly), ContentTypeValidator(), ProtocolVersionValidator(),
            ]))
        let server: Server
        do {
            server = try await makeServer(caller)
            try await server.start(transport: transport)
        } catch {
            return Self.rpcError(status: .internalServerError, code: -32603, "the MCP server could not start", id: .null)
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
        }
        let answer = await transport.handleRequest(
            MCP.HTTPRequest(
                method: request.method.rawValue, headers: headers, body: body.isEmpty ? nil : Data(body), path: request.path))
        await server.stop()
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        if case .stream = answer {
            return Self.rpcError(status: .internalServerError, code: -32603, "the stateless transport answered a stream", id: .null)
        }
        return ServerResponse(
            status: HTTPTypes.HTTPResponse.Status(code: answer.statusCode), headers: fields, body: answer.bodyData.map { Array($0) } ?? [])
    }

    /// A JSON-RPC error response (JSON-RPC 2.0 §5.1).
    static func rpcError(status: HTTPTypes.HTTPResponse.Status, code: Int64, _ message: String, id: JSONValue) -> ServerResponse {
        ServerResponse(
            status: status, headers: [.contentType: "application/json"],
            body: JSONSerializer.bytes(["jsonrpc": "2.0", "error": ["code": .integer(code), "message": .string(message)], "id": id]))
    }

    /// 1–128 of `A-Z a-z 0-9 _ - .`.
    static func isToolName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                    true
                default: false
                }
            }
    }
}
