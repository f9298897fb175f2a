import Federate
public import FederateServer
public import Hummingbird
public import Logging

/// The routes a server mounts for federated login, with one call:
///
/// ```swift
/// let router = Router(context: FederateContext.self)
/// try FederateRoutes(configuration: configuration).register(on: router)
/// ```
///
/// Each route is one of `FederateEndpoints/routes` (FederateServer, shared with FederateVapor):
/// - `GET {auth}/{provider}/start?intent=signIn|link|reauthenticate&returnTo=/path&login_hint=HINT`
///   redirects to the provider (with `acr_values` and/or `max_age`, a step-up sign-in,
///   `Docs/StepUp.md`); the pending authorization is sealed into a cookie, so any instance finishes it.
/// - `GET|POST {auth}/{provider}/callback` (query, or Apple's cross-site `form_post`): checks
///   `state` against the sealed cookie, completes the sign-in, sets the session cookie and
///   redirects (303) to `returnTo`, which is always a same-site path.
/// - `POST {auth}/{provider}/backchannel-logout`, `…/notifications`, `…/risc`: the providers' events.
/// - `POST {auth}/signout` (with the provider's `end_session_url` when it has one, RP-Initiated
///   Logout 1.0) and `GET {auth}/signout/callback` (the provider's return); `GET /me`; `DELETE /me/providers/{providerID}` (unlink);
///   `DELETE /me` (delete the account and revoke its provider tokens). State-changing routes
///   need the CSRF header; unlink and delete need a recent sign-in (`requires_recent_login`, 403).
/// - `POST {auth}/guest` (a guest account, with `FederateServerConfiguration/allowsGuests`) and
///   `POST /me/merge` (merge after `credential_already_in_use`), documented in Docs/Server.md. A
///   guest's link upgrades it in place and rotates its cookie to a full session.
/// - `GET` each of `FederateServerConfiguration/staticFiles` (Apple's domain association).
public struct FederateRoutes<Context: FederateRequestContext>: Sendable {
    /// What the routes serve.
    package var configuration: FederateServerConfiguration { endpoints.configuration }
    private let endpoints: FederateEndpoints

    /// Creates the routes.
    public init(configuration: FederateServerConfiguration, logger: Logger = Logger(label: "federate.server")) {
        endpoints = FederateEndpoints(configuration: configuration, logger: logger)
    }

    /// Registers every route on `router`. Throws `invalid_configuration`, naming both, when a
    /// route overlaps one the router has already (the same method, a path both match), before
    /// anything is registered.
    public func register(on router: Router<Context>) throws(FederateError) {
        try ServerRoutes<Context>(endpoints.routes, owner: "Federate").register(on: router)
    }
}

/// Mounts a set of FederateServer's routes on a Hummingbird router as they are, each with its
/// method, path (`:name` parameters) and body limit: an MCP server's (`ProtectedMCPServer.routes`)
/// or any other. ``FederateRoutes`` is federated login's.
///
/// ```swift
/// try ServerRoutes<FederateContext>(mcp.routes, owner: "the MCP server").register(on: router)
/// ```
public struct ServerRoutes<Context: RequestContext>: Sendable {
    /// The routes.
    public let routes: [ServerRoute]
    /// Who mounts them, as an overlap names it.
    public let owner: String

    /// Routes to mount; `owner` names them when one overlaps another route.
    public init(_ routes: [ServerRoute], owner: String) {
        self.routes = routes
        self.owner = owner
    }

    /// Registers every route on `router`. Throws `invalid_configuration`, naming both, when a
    /// route overlaps one the router has already (the same method, a path both match), before
    /// anything is registered. A route's body is read only when its work asks for it.
    public func register(on router: Router<Context>) throws(FederateError) {
        let mounted = router.federateMountedRoutes
        for route in routes {
            try RouteOverlap.check(route.method.rawValue, Self.path(of: route), against: mounted, owner: owner)
        }
        for route in routes {
            // `:provider` is Hummingbird's `{provider}`.
            let names = route.path.filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
            router.on(RouterPath(Self.path(of: route)), method: route.method) { (request: Request, context: Context) -> Response in
                var parameters: [String: String] = [:]
                for name in names { parameters[name] = context.parameters.get(name) }
                var request = request
                let head = ServerRequest(request, context: context)
                return Response(
                    await route.respond(to: head, parameters: parameters) {
                        guard let limit = route.bodyLimit else { return [] }
                        return Array(buffer: try await request.collectBody(upTo: limit))
                    })
            }
        }
    }

    /// The route's path in Hummingbird's syntax: `:provider` is `{provider}`.
    private static func path(of route: ServerRoute) -> String {
        "/" + route.path.map { $0.hasPrefix(":") ? "{" + $0.dropFirst() + "}" : $0 }.joined(separator: "/")
    }
}

extension Router {
    /// The routes registered so far, as ``RouteOverlap`` compares them.
    package var federateMountedRoutes: [(method: String, path: String)] {
        routes.map { (method: $0.method.rawValue, path: $0.path.description) }
    }
}
