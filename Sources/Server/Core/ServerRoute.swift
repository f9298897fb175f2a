public import HTTPTypes

/// One route for an integration to mount as it is: its method, its path and the most body it
/// reads. ``respond(to:parameters:body:)`` answers it, refusals included; an integration adds
/// nothing of its own. `FederateEndpoints.routes` (federated login) and FederateMCP's
/// `ProtectedMCPServer.routes` are made of them, so FederateHummingbird's and FederateVapor's
/// `ServerRoutes` mount either.
public struct ServerRoute: Sendable {
    /// The method.
    public let method: HTTPRequest.Method
    /// The path's components: a literal, or `:NAME` for a parameter (`:provider`, `:providerID`).
    public let path: [String]
    /// The largest body the route reads; `nil` for a route that reads none.
    public let bodyLimit: Int?
    /// The work, given the request, the path's parameters and what reads the body.
    private let handler: @Sendable (ServerRequest, [String: String], () async throws -> [UInt8]) async -> ServerResponse

    /// A route whose work reads the body itself, when it needs it (after checking a token, say).
    package static func reading(
        _ method: HTTPRequest.Method, _ path: [String], bodyLimit: Int? = nil,
        _ handler: @escaping @Sendable (ServerRequest, [String: String], () async throws -> [UInt8]) async -> ServerResponse
    ) -> ServerRoute {
        ServerRoute(method: method, path: path, bodyLimit: bodyLimit, handler: handler)
    }

    private init(
        method: HTTPRequest.Method, path: [String], bodyLimit: Int?,
        handler: @escaping @Sendable (ServerRequest, [String: String], () async throws -> [UInt8]) async -> ServerResponse
    ) {
        self.method = method
        self.path = path
        self.bodyLimit = bodyLimit
        self.handler = handler
    }

    /// A route whose work is given the body, read first (413 when it is larger than `bodyLimit`).
    package init(
        _ method: HTTPRequest.Method, _ path: [String], bodyLimit: Int? = nil,
        _ handler: @escaping @Sendable (ServerRequest, [String: String], [UInt8]) async -> ServerResponse
    ) {
        self.init(method: method, path: path, bodyLimit: bodyLimit) { request, parameters, read in
            let body: [UInt8]
            do {
                body = try await read()
            } catch {
                return ErrorResponse.json(
                    .contentTooLarge, code: .invalidRequest, message: "the body is larger than \(bodyLimit ?? 0) bytes")
            }
            return await handler(request, parameters, body)
        }
    }

    /// The path as one string, `/a/:name/b`.
    public var pathString: String { "/" + path.joined(separator: "/") }

    /// The answer to `request`: `parameters` are the path's, by name without the colon
    /// (`["provider": "google"]`); `body` reads the request's body, up to ``bodyLimit`` (it
    /// throws past it), and is called at most once, only when the route needs the body.
    public func respond(
        to request: ServerRequest, parameters: [String: String] = [:], body: () async throws -> [UInt8] = { [] }
    ) async -> ServerResponse {
        await handler(request, parameters, body)
    }
}
