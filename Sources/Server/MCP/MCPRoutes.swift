public import FederateHummingbird
import FederateServer
public import Hummingbird

/// Mounts a ``ProtectedMCPServer`` on a Hummingbird router: `POST`, `GET` and `DELETE` at the
/// MCP endpoint (the path of its resource identifier, `/mcp` for `https://api.example.com/mcp`)
/// and its RFC 9728 metadata at `/.well-known/oauth-protected-resource` plus that path.
///
/// A resource that is a bare origin (`https://mcp.example`) has its endpoint at `/`: there only
/// `POST` and `DELETE` are mounted, so `GET /` stays the site's (the stateless transport
/// answers `GET` with 405 anyway, which a client reads as "no event stream").
///
/// ```swift
/// try MCPRoutes<FederateContext>(mcp).register(on: router)
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

    /// The methods mounted at the endpoint: `POST`, `GET` and `DELETE`, without `GET` at `/`.
    var methods: [HTTPRequest.Method] { path == "/" ? [.post, .delete] : [.post, .get, .delete] }

    /// Registers the endpoint and the metadata on `router`. Throws `invalid_configuration`,
    /// naming both, when one of them overlaps a route the router has already (the same method,
    /// a path both match), before anything is registered.
    public func register(on router: Router<Context>) throws(FederateError) {
        let server = self.server
        let metadata = server.metadata.response
        let metadataPath = server.metadata.metadataPath
        let mounted = router.federateMountedRoutes
        try RouteOverlap.check("GET", metadataPath, against: mounted, owner: "the MCP server")
        for method in methods {
            try RouteOverlap.check(method.rawValue, path, against: mounted, owner: "the MCP server")
        }
        // Its exact path only: not `…/mcp/`, `…//mcp` or `…/%6dcp`, which the router would also match.
        router.get(RouterPath(metadataPath)) { request, _ in
            request.uri.path.utf8.elementsEqual(metadataPath.utf8) ? Response(metadata) : Response(status: .notFound)
        }
        for method in methods {
            router.on(RouterPath(path), method: method) { (request: Request, _: Context) -> Response in
                var request = request
                let head = ServerRequest(request)
                // The token is verified before the body is read.
                return Response(
                    await server.respond(to: head) {
                        guard method == .post else { return [] }
                        return Array(buffer: try await request.collectBody(upTo: ProtectedMCPServer.maximumBodyBytes))
                    })
            }
        }
    }
}
