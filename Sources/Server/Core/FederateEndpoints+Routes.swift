import Federate
public import HTTPTypes

extension FederateEndpoints {
    /// One route of federated login, for an integration to mount as it is: its method, its path
    /// and the body it reads. ``respond(to:parameters:body:)`` answers it, refusals included; an
    /// integration adds nothing of its own.
    public struct Route: Sendable {
        /// The method.
        public let method: HTTPTypes.HTTPRequest.Method
        /// The path's components: a literal, or `:NAME` for a parameter (`:provider`, `:providerID`).
        public let path: [String]
        /// The largest body the route reads (64 KiB); `nil` for a route that reads none.
        public let bodyLimit: Int?
        /// The work, given the request, the path's parameters and the body.
        let handler: @Sendable (ServerRequest, [String: String], [UInt8]) async -> ServerResponse

        /// A route.
        init(
            _ method: HTTPTypes.HTTPRequest.Method, _ path: [String], bodyLimit: Int? = nil,
            _ handler: @escaping @Sendable (ServerRequest, [String: String], [UInt8]) async -> ServerResponse
        ) {
            self.method = method
            self.path = path
            self.bodyLimit = bodyLimit
            self.handler = handler
        }

        /// The answer to `request`: `parameters` are the path's, by name without the colon
        /// (`["provider": "google"]`), `body` the request's body collected up to ``bodyLimit``
        /// (empty for a route that reads none).
        public func respond(to request: ServerRequest, parameters: [String: String] = [:], body: [UInt8] = []) async -> ServerResponse {
            await handler(request, parameters, body)
        }
    }

    /// Every route, each answered by FederateServer:
    /// - `GET {auth}/:provider/start` and `GET|POST {auth}/:provider/callback` (sign-in);
    /// - `POST {auth}/:provider/backchannel-logout`, `…/notifications`, `…/risc` (providers' events);
    /// - `POST {auth}/signout` and `GET {auth}/signout/callback`;
    /// - `GET /me`, `DELETE /me/providers/:providerID`, `DELETE /me` and `POST /me/merge`;
    /// - `POST {auth}/guest`, with ``FederateServerConfiguration/allowsGuests``;
    /// - `GET` each of the configuration's static files (Apple's domain association).
    ///
    /// The sign-out and `/me` routes establish the session themselves (the session cookie, or
    /// `Authorization: Bearer SESSION_TOKEN`, CSRF-checked: ``AccountSessionAuthenticator``).
    public var routes: [Route] {
        let endpoints = self
        let auth = Self.components(configuration.authPath)
        let session = AccountSessionAuthenticator(accounts: configuration.accounts, origin: configuration.origin)
        /// A route behind the session authentication: its refusal, or the work with the session.
        func withSession(
            _ method: HTTPTypes.HTTPRequest.Method, _ path: [String],
            _ work: @escaping @Sendable (ServerRequest, [String: String], AccountSession?) async -> ServerResponse
        ) -> Route {
            Route(method, path) { request, parameters, _ in
                let current: AccountSession?
                do throws(FederateHTTPError) {
                    current = try await session.authenticate(request)
                } catch {
                    return error.serverResponse
                }
                return await work(request, parameters, current)
            }
        }
        var routes = [
            Route(.get, auth + [":provider", "start"]) { request, parameters, _ in
                await endpoints.start(request, provider: parameters["provider"] ?? "")
            },
            Route(.get, auth + [":provider", "callback"]) { request, parameters, _ in
                await endpoints.callback(request, provider: parameters["provider"] ?? "", form: nil)
            },
            Route(.post, auth + [":provider", "callback"], bodyLimit: Self.maximumBodyBytes) { request, parameters, body in
                await endpoints.callback(request, provider: parameters["provider"] ?? "", form: body)
            },
        ]
        // What providers POST out of band: back-channel logout, Apple's notifications, Google's RISC events.
        for event in ProviderEventRoute.allCases {
            routes.append(
                Route(.post, auth + [":provider", event.rawValue], bodyLimit: Self.maximumBodyBytes) { _, parameters, body in
                    await endpoints.receiveEvents(event, provider: parameters["provider"] ?? "", body: body)
                })
        }
        routes += [
            withSession(.post, auth + ["signout"]) { request, _, session in await endpoints.signOut(request, session: session) },
            Route(.get, auth + ["signout", "callback"]) { request, _, _ in endpoints.signedOutAtProvider(request) },
            withSession(.get, ["me"]) { request, _, session in await endpoints.me(request, session: session) },
            withSession(.delete, ["me", "providers", ":providerID"]) { _, parameters, session in
                await endpoints.unlink(providerID: parameters["providerID"], session: session)
            },
            withSession(.delete, ["me"]) { _, _, session in await endpoints.deleteAccount(session) },
            withSession(.post, ["me", "merge"]) { request, _, session in await endpoints.merge(request, session: session) },
        ]
        if configuration.allowsGuests {
            routes.append(Route(.post, auth + ["guest"]) { request, _, _ in await endpoints.guest(request) })
        }
        for path in configuration.staticFiles.keys {
            routes.append(
                Route(.get, Self.components(path)) { _, _, _ in
                    endpoints.staticFile(at: path) ?? ServerResponse(status: .notFound)
                })
        }
        return routes
    }

    /// `/auth` as path components: `["auth"]`.
    static func components(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }
}
