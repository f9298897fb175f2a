public import FederateServer
public import Logging
public import Vapor

/// The routes of federated login, registered the Vapor way:
///
/// ```swift
/// try app.register(collection: FederateRoutes(configuration: configuration))
/// ```
///
/// The same routes as FederateHummingbird's, each one of FederateServer's `FederateEndpoints/routes`:
/// - `GET {auth}/:provider/start?intent=signIn|link|reauthenticate&returnTo=/path&login_hint=HINT`
///   (and `acr_values`, `max_age` for a step-up sign-in): redirects to the provider, the pending
///   authorization sealed into a cookie;
/// - `GET|POST {auth}/:provider/callback`: completes the sign-in, sets the session cookie,
///   redirects (303) to `returnTo` (on failure `returnTo?error=CODE`);
/// - `POST {auth}/:provider/backchannel-logout`, `…/notifications`, `…/risc`: providers' events;
/// - `POST {auth}/signout` (with the provider's `end_session_url` when it has one, RP-Initiated
///   Logout 1.0) and `GET {auth}/signout/callback` (the provider's return); `GET /me`, `DELETE /me/providers/:providerID`, `DELETE /me`
///   (behind the session authentication of ``SessionAuthenticationMiddleware``: CSRF for
///   cookie-authenticated changes; unlink and delete need a recent sign-in);
/// - `POST {auth}/guest` (a guest account, with the configuration's `allowsGuests`) and
///   `POST /me/merge` (merge after `credential_already_in_use`);
/// - `GET` each of the configuration's `staticFiles` (Apple's domain association).
public struct FederateRoutes: RouteCollection {
    /// What the routes serve.
    public let configuration: FederateServerConfiguration
    private let endpoints: FederateEndpoints

    /// Creates the routes.
    public init(configuration: FederateServerConfiguration, logger: Logger = Logger(label: "federate.server")) {
        self.configuration = configuration
        endpoints = FederateEndpoints(configuration: configuration, logger: logger)
    }

    /// Registers every route. Throws `invalid_configuration`, naming both, when a route
    /// overlaps one the application has already (the same method, a path both match; Vapor
    /// would let the later one take over), before anything is registered.
    public func boot(routes: any RoutesBuilder) throws {
        try ServerRoutes(endpoints.routes, owner: "Federate").boot(routes: routes)
    }
}

/// Mounts a set of FederateServer's routes on a Vapor application as they are, each with its
/// method, path (`:name` parameters) and body limit: an MCP server's (`ProtectedMCPServer.routes`)
/// or any other. ``FederateRoutes`` is federated login's.
///
/// ```swift
/// try app.register(collection: ServerRoutes(mcp.routes, owner: "the MCP server"))
/// ```
public struct ServerRoutes: RouteCollection {
    /// The routes.
    public let routes: [ServerRoute]
    /// Who mounts them, as an overlap names it.
    public let owner: String

    /// Routes to mount; `owner` names them when one overlaps another route.
    public init(_ routes: [ServerRoute], owner: String) {
        self.routes = routes
        self.owner = owner
    }

    /// Registers every route. Throws `invalid_configuration`, naming both, when a route
    /// overlaps one the application has already (the same method, a path both match; Vapor
    /// would let the later one take over), before anything is registered. A route's body is
    /// streamed and read only when its work asks for it, up to its limit.
    public func boot(routes builder: any RoutesBuilder) throws {
        let mounted = Self.mounted(in: builder)
        for route in routes {
            try RouteOverlap.check(route.method.rawValue, route.pathString, against: mounted, owner: owner)
        }
        for route in routes {
            // `:provider` is Vapor's parameter syntax too.
            let path = route.path.map(PathComponent.init(stringLiteral:))
            let names = route.path.filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
            let method = HTTPMethod(rawValue: route.method.rawValue)
            let respond: @Sendable (Request) async -> Response = { request in
                var parameters: [String: String] = [:]
                for name in names { parameters[name] = request.parameters.get(name) }
                return Response(
                    await route.respond(to: ServerRequest(routeRequest: request), parameters: parameters) {
                        guard let limit = route.bodyLimit else { return [] }
                        let buffer = try await request.body.collect(max: limit).get()
                        return buffer.map { Array($0.readableBytesView) } ?? []
                    })
            }
            if route.bodyLimit != nil {
                builder.on(method, path, body: .stream) { request in await respond(request) }
            } else {
                builder.on(method, path) { request in await respond(request) }
            }
        }
    }

    /// The routes `builder` holds so far, when it is the application or its routes (a group
    /// does not tell).
    static func mounted(in builder: any RoutesBuilder) -> [(method: String, path: String)] {
        let all = (builder as? Application)?.routes.all ?? (builder as? Routes)?.all ?? []
        return all.map { (method: $0.method.rawValue, path: "/" + $0.path.map(\.description).joined(separator: "/")) }
    }
}

/// `GET /healthz` and `GET /readyz` for an orchestrator's probes (FederateServer's `Readiness`):
///
/// ```swift
/// try app.register(collection: HealthRoutes(readiness: Readiness(configuration: configuration)))
/// ```
///
/// `/healthz` always answers 200 `{"status": "ok"}`; `/readyz` 200 `{"status": "ready"}` once the
/// store answers and every provider's keys are cached, else 503 naming what is not ready.
public struct HealthRoutes: RouteCollection {
    /// What `/readyz` checks.
    public let readiness: Readiness
    /// The liveness path (`/healthz`).
    public let healthPath: String
    /// The readiness path (`/readyz`).
    public let readyPath: String
    private let logger: Logger

    /// Creates the routes.
    public init(
        readiness: Readiness, healthPath: String = "/healthz", readyPath: String = "/readyz",
        logger: Logger = Logger(label: "federate.health")
    ) {
        self.readiness = readiness
        self.healthPath = healthPath
        self.readyPath = readyPath
        self.logger = logger
    }

    public func boot(routes: any RoutesBuilder) throws {
        let readiness = self.readiness, logger = self.logger
        routes.get(healthPath.pathComponents) { _ in Response(Readiness.liveResponse) }
        routes.get(readyPath.pathComponents) { _ in Response(await readiness.readyResponse(logger: logger)) }
    }
}

/// Serves the RFC 9728 metadata of one or more protected resources, each at its metadata path
/// (`/.well-known/oauth-protected-resource`, then the resource's path):
///
/// ```swift
/// try app.register(collection: ProtectedResourceRoutes([metadata]))
/// ```
///
/// Give the same metadata to the resource's ``BearerAuthenticationMiddleware``, so its
/// challenges name it (`resource_metadata`).
public struct ProtectedResourceRoutes: RouteCollection {
    /// The resources.
    public let resources: [ProtectedResourceMetadata]

    /// Creates the routes.
    public init(_ resources: [ProtectedResourceMetadata]) {
        self.resources = resources
    }

    public func boot(routes: any RoutesBuilder) throws {
        for resource in resources {
            let answer = resource.response
            routes.get(resource.metadataPath.pathComponents) { _ in Response(answer) }
        }
    }
}
