import FederateHummingbird
import FederateServer
public import Hummingbird

/// Mounts a ``ProtectedMCPServer`` on a Hummingbird router: `POST`, `GET` and `DELETE` at the
/// MCP endpoint (the path of its resource identifier, `/mcp` for `https://api.example.com/mcp`)
/// and its RFC 9728 metadata at `/.well-known/oauth-protected-resource` plus that path.
///
/// ```swift
/// MCPRoutes<FederateContext>(mcp).register(on: router)
/// ```
public struct MCPRoutes<Context: RequestContext>: Sendable {
    /// The server.
    package let server: ProtectedMCPServer
    /// Where the endpoint is: the resource identifier's path.
    package let path: String

    /// Creates the routes.
    public init(_ server: ProtectedMCPServer) {
        self.server = server
        let path = ProtectedResourceMetadata.path(of: server.metadata.resource)
        self.path = path.isEmpty ? "/" : path
    }

    /// Registers the endpoint and the metadata on `router`.
    public func register(on router: Router<Context>) {
        let server = self.server
        let metadata = server.metadata.response
        router.get(RouterPath(server.metadata.metadataPath)) { _, _ in Response(metadata) }
        for method in [HTTPRequest.Method.post, .get, .delete] {
            router.on(RouterPath(path), method: method) { (request: Request, _: Context) -> Response in
                var request = request
                let body = method == .post ? try await request.collectBody(upTo: ProtectedMCPServer.maximumBodyBytes) : ByteBuffer()
                return Response(await server.respond(to: ServerRequest(request), body: Array(buffer: body)))
            }
        }
    }
}
