import Federate
import HTTPTypes

extension FederateEndpoints {
    /// Every route, each answered by FederateServer:
    /// - `GET {auth}/:provider/start` and `GET|POST {auth}/:provider/callback` (sign-in);
    /// - `POST {auth}/:provider/backchannel-logout`, `…/notifications`, `…/risc` (providers' events);
    /// - `POST {auth}/signout` and `GET {auth}/signout/callback`;
    /// - `GET /me`, `DELETE /me/providers/:providerID`, `DELETE /me` and `POST /me/merge`;
    /// - `POST {auth}/guest`, with ``FederateServerConfiguration/allowsGuests``;
    /// - with passkeys configured (`AccountServiceConfiguration` `passkeys`): `POST
    ///   {auth}/passkey/options` and `POST {auth}/passkey` (sign-in), `POST /me/passkeys/options`,
    ///   `POST /me/passkeys`, `GET /me/passkeys`, `DELETE /me/passkeys/:id`, `POST
    ///   /me/reauthenticate/passkey/options` and `POST /me/reauthenticate/passkey`;
    /// - `GET` each of the configuration's static files (Apple's domain association).
    ///
    /// The sign-out and `/me` routes establish the session themselves (the session cookie, or
    /// `Authorization: Bearer SESSION_TOKEN`, CSRF-checked: ``AccountSessionAuthenticator``).
    public var routes: [ServerRoute] {
        let endpoints = self
        let auth = Self.components(configuration.authPath)
        let session = AccountSessionAuthenticator(accounts: configuration.accounts, origin: configuration.origin)
        /// A route behind the session authentication: its refusal, or the work with the session.
        func withSession(
            _ method: HTTPTypes.HTTPRequest.Method, _ path: [String],
            _ work: @escaping @Sendable (ServerRequest, [String: String], AccountSession?) async -> ServerResponse
        ) -> ServerRoute {
            withSession(method, path) { request, parameters, current, _ in await work(request, parameters, current) }
        }
        /// The same, for a route that reads a body (at most ``maximumBodyBytes``).
        func withSession(
            _ method: HTTPTypes.HTTPRequest.Method, _ path: [String],
            _ work: @escaping @Sendable (ServerRequest, [String: String], AccountSession?, [UInt8]) async -> ServerResponse
        ) -> ServerRoute {
            ServerRoute(method, path, bodyLimit: Self.maximumBodyBytes) { request, parameters, body in
                let current: AccountSession?
                do throws(FederateHTTPError) {
                    current = try await session.authenticate(request)
                } catch {
                    return error.serverResponse
                }
                return await work(request, parameters, current, body)
            }
        }
        var routes = [
            ServerRoute(.get, auth + [":provider", "start"]) { request, parameters, _ in
                await endpoints.start(request, provider: parameters["provider"] ?? "")
            },
            ServerRoute(.get, auth + [":provider", "callback"]) { request, parameters, _ in
                await endpoints.callback(request, provider: parameters["provider"] ?? "", form: nil)
            },
            ServerRoute(.post, auth + [":provider", "callback"], bodyLimit: Self.maximumBodyBytes) { request, parameters, body in
                await endpoints.callback(request, provider: parameters["provider"] ?? "", form: body)
            },
        ]
        // What providers POST out of band: back-channel logout, Apple's notifications, Google's RISC events.
        for event in ProviderEventRoute.allCases {
            routes.append(
                ServerRoute(.post, auth + [":provider", event.rawValue], bodyLimit: Self.maximumBodyBytes) { _, parameters, body in
                    await endpoints.receiveEvents(event, provider: parameters["provider"] ?? "", body: body)
                })
        }
        routes += [
            withSession(.post, auth + ["signout"]) { request, _, session in await endpoints.signOut(request, session: session) },
            ServerRoute(.get, auth + ["signout", "callback"]) { request, _, _ in endpoints.signedOutAtProvider(request) },
            withSession(.get, ["me"]) { request, _, session in await endpoints.me(request, session: session) },
            withSession(.delete, ["me", "providers", ":providerID"]) { _, parameters, session in
                await endpoints.unlink(providerID: parameters["providerID"], session: session)
            },
            withSession(.delete, ["me"]) { _, _, session in await endpoints.deleteAccount(session) },
            withSession(.post, ["me", "merge"]) { request, _, session in await endpoints.merge(request, session: session) },
        ]
        if configuration.accounts.offersPasskeys {
            routes += [
                ServerRoute(.post, auth + ["passkey", "options"]) { request, _, _ in await endpoints.passkeySignInOptions(request) },
                ServerRoute(.post, auth + ["passkey"], bodyLimit: Self.maximumBodyBytes) { request, _, body in
                    await endpoints.passkeySignIn(request, body: body)
                },
                withSession(.post, ["me", "passkeys", "options"]) { _, _, session in
                    await endpoints.passkeyRegistrationOptions(session: session)
                },
                withSession(.post, ["me", "passkeys"]) { request, _, session, body in
                    await endpoints.addPasskey(request, body: body, session: session)
                },
                withSession(.get, ["me", "passkeys"]) { _, _, session in await endpoints.listPasskeys(session: session) },
                withSession(.delete, ["me", "passkeys", ":id"]) { _, parameters, session in
                    await endpoints.removePasskey(id: parameters["id"], session: session)
                },
                withSession(.post, ["me", "reauthenticate", "passkey", "options"]) { _, _, session in
                    await endpoints.passkeyReauthenticationOptions(session: session)
                },
                withSession(.post, ["me", "reauthenticate", "passkey"]) { request, _, session, body in
                    await endpoints.passkeyReauthenticate(request, body: body, session: session)
                },
            ]
        }
        if configuration.allowsGuests {
            routes.append(ServerRoute(.post, auth + ["guest"]) { request, _, _ in await endpoints.guest(request) })
        }
        for path in configuration.staticFiles.keys {
            routes.append(
                ServerRoute(.get, Self.components(path)) { _, _, _ in
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
