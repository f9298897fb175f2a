import Federate
public import FederateServer
public import Hummingbird
public import Logging

/// The routes a server mounts for federated login, with one call:
///
/// ```swift
/// let router = Router(context: FederateContext.self)
/// FederateRoutes(configuration: configuration).register(on: router)
/// ```
///
/// Each route is one of `FederateEndpoints` (FederateServer, shared with FederateVapor):
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
    public var configuration: FederateServerConfiguration { endpoints.configuration }
    private let endpoints: FederateEndpoints

    /// Creates the routes.
    public init(configuration: FederateServerConfiguration, logger: Logger = Logger(label: "federate.server")) {
        endpoints = FederateEndpoints(configuration: configuration, logger: logger)
    }

    /// Registers every route on `router`.
    public func register(on router: Router<Context>) {
        let endpoints = self.endpoints
        let accounts = configuration.accounts, origin = configuration.origin
        let auth = router.group(RouterPath(configuration.authPath))
        auth.get("{provider}/start") { request, context in
            Response(await endpoints.start(ServerRequest(request), provider: context.parameters.get("provider") ?? ""))
        }
        auth.get("{provider}/callback") { request, context in
            Response(await endpoints.callback(ServerRequest(request), provider: context.parameters.get("provider") ?? "", form: nil))
        }
        auth.post("{provider}/callback") { request, context in
            var request = request
            let body = try await request.collectBody(upTo: FederateEndpoints.maximumBodyBytes)
            return Response(
                await endpoints.callback(
                    ServerRequest(request), provider: context.parameters.get("provider") ?? "", form: Array(buffer: body)))
        }
        // What providers POST out of band: back-channel logout, Apple's notifications, Google's RISC events.
        for route in ProviderEventRoute.allCases {
            auth.post("{provider}/\(route.rawValue)") { request, context in
                var request = request
                let body = try await request.collectBody(upTo: FederateEndpoints.maximumBodyBytes)
                return Response(
                    await endpoints.receiveEvents(route, provider: context.parameters.get("provider") ?? "", body: Array(buffer: body)))
            }
        }
        auth.group("signout").add(middleware: SessionAuthenticationMiddleware<Context>(accounts: accounts, origin: origin))
            .post { request, context in Response(await endpoints.signOut(ServerRequest(request), session: context.federate.session)) }
        auth.get("signout/callback") { request, _ in Response(endpoints.signedOutAtProvider(ServerRequest(request))) }

        let me = router.group("me").add(middleware: SessionAuthenticationMiddleware<Context>(accounts: accounts, origin: origin))
        me.get { request, context in Response(await endpoints.me(ServerRequest(request), session: context.federate.session)) }
        me.delete("providers/{providerID}") { _, context in
            Response(await endpoints.unlink(providerID: context.parameters.get("providerID"), session: context.federate.session))
        }
        me.delete { _, context in Response(await endpoints.deleteAccount(context.federate.session)) }
        me.post("merge") { request, context in Response(await endpoints.merge(ServerRequest(request), session: context.federate.session)) }
        if configuration.allowsGuests {
            auth.post("guest") { request, _ in Response(await endpoints.guest(ServerRequest(request))) }
        }

        for path in configuration.staticFiles.keys {
            router.get(RouterPath(path)) { _, _ in endpoints.staticFile(at: path).map(Response.init) ?? Response(status: .notFound) }
        }
    }
}
