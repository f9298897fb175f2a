public import Federate
public import FederateServer
public import Vapor

/// Requires a verified token in `Authorization` and records who the caller is in
/// `req.federate.caller`: FederateServer's
/// `CallerAuthenticator` on a route group.
///
/// ```swift
/// let api = app.grouped("api").grouped(BearerAuthenticationMiddleware(
///     verifier: CallerTokenRouter(idTokens: google, accessTokens: accessTokens), requiredScopes: ["orders:read"], resource: metadata))
/// api.get("whoami") { req in req.federate.caller?.subject ?? "" }
/// ```
///
/// Refusals are the authenticator's RFC 6750 §3 challenges (`BearerChallenge`): 401 with
/// `WWW-Authenticate` naming each scheme (and the API's RFC 9728 metadata, given `resource`),
/// 400 for a malformed header, 403 `insufficient_scope`, 503 when introspection or the account
/// store fails. Serve the metadata itself with ``ProtectedResourceRoutes``.
public struct BearerAuthenticationMiddleware: AsyncMiddleware {
    /// The authentication.
    public let authenticator: CallerAuthenticator

    /// Creates the middleware: `verifier` verifies the tokens of every kind the route group accepts.
    public init(
        verifier: any TokenVerifier, requiredScopes: OAuthScopes = [],
        presentations: [any TokenPresentation] = [BearerPresentation()],
        resource: ProtectedResourceMetadata? = nil
    ) {
        authenticator = CallerAuthenticator(
            verifier: verifier, requiredScopes: requiredScopes, presentations: presentations, resource: resource)
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let authenticated: AuthenticatedCaller
        do throws(BearerChallenge) {
            authenticated = try await authenticator.authenticate(ServerRequest(request))
        } catch {
            return Response(error.serverResponse)
        }
        request.federate.caller = authenticated.caller
        let response = try await next.respond(to: request)
        for field in authenticated.responseFields { response.headers.add(name: field.name.rawName, value: field.value) }
        return response
    }
}

/// Requires scopes of the caller a ``BearerAuthenticationMiddleware`` before it verified, for
/// the routes it is added to: 403 `insufficient_scope` with `scope="…"` without them (RFC 6750
/// §3.1), 401 `invalid_token` without a verified caller. Give it the authentication's
/// `presentations` and `resource`, so its challenges name the same schemes and metadata.
public struct RequiredScopesMiddleware: AsyncMiddleware {
    /// The scopes required.
    public let scopes: OAuthScopes
    /// The schemes the challenges name.
    public let presentations: [any TokenPresentation]
    /// The API's RFC 9728 metadata, named in the challenges.
    public let resource: ProtectedResourceMetadata?

    /// Creates the middleware.
    public init(
        _ scopes: OAuthScopes, presentations: [any TokenPresentation] = [BearerPresentation()], resource: ProtectedResourceMetadata? = nil
    ) {
        self.scopes = scopes
        self.presentations = presentations
        self.resource = resource
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do throws(BearerChallenge) {
            try BearerChallenge.requireScopes(scopes, of: request.federate.caller, presentations: presentations, resource: resource)
        } catch {
            return Response(error.serverResponse)
        }
        return try await next.respond(to: request)
    }
}
