import Federate
import FederateDevProvider
import FederateOIDC
import FederateVapor
import Foundation
import Testing
import Vapor
import VaporTesting

/// FederateVapor's API middleware: access tokens for this API's resource (RFC 8707) from a
/// real dev provider, the RFC 9728 metadata and its `resource_metadata` in every challenge,
/// scopes, the recent-login and step-up guards, and Federate's error answers.
@Suite("Vapor: API middleware", .serialized)
struct VaporAPITests {
    static let resource = testOrigin + "/api"

    /// An access token for `resource`, with `scopes`, through the code flow (alice is approved at once).
    static func accessToken(from dev: DevProvider, resource: String, scopes: [String]) async throws -> String {
        let client = try await OIDCProvider(
            id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
        ).client().withResources([resource])
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:1/callback", scopes: ["openid"] + scopes)
        let redirect = try await AsyncHTTPClientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        let location = try #require(redirect.header("Location"))
        let query = try #require(URLComponents(string: location)?.percentEncodedQuery)
        return try await client.finish(try AuthorizationResponse(query: query), pending: built.pending).accessToken
    }

    static func api(
        _ app: Application, _ configuration: FederateServerConfiguration, dev: DevProvider
    ) async throws -> ProtectedResourceMetadata {
        let metadata = try ProtectedResourceMetadata(
            resource: resource, authorizationServers: [dev.issuer], scopesSupported: ["orders:read", "orders:write"])
        let client = try await OIDCProvider(
            id: "oidc.dev", issuer: dev.issuer, clientID: "dev-client", clientSecret: "dev-secret",
            cache: ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
        ).client()
        let api = app.grouped("api").grouped(
            BearerAuthenticationMiddleware(
                verifier: CallerTokenRouter(accessTokens: client.accessTokenVerifier(resource: resource, providerID: "oidc.dev")),
                resource: metadata))
        api.get("whoami") { request in request.federate.caller?.subject ?? "" }
        api.grouped(RequiredScopesMiddleware(["orders:write"], resource: metadata)).post("orders") { _ in "ordered" }
        try app.register(collection: ProtectedResourceRoutes([metadata]))
        return metadata
    }

    @Test func accessTokensForThisResourceOnly() async throws {
        try await withFederateApp { app, configuration, providers in
            let metadata = try await Self.api(app, configuration, dev: providers[0])
            let browser = TestBrowser(app: app)
            let challenge = "Bearer resource_metadata=\"\(testOrigin)/.well-known/oauth-protected-resource/api\""
            #expect(metadata.metadataURL == testOrigin + "/.well-known/oauth-protected-resource/api")

            // No token: the bare challenge, naming the metadata (RFC 9728 §5.1).
            let bare = try await browser.send(.GET, "/api/whoami")
            #expect(bare.status == 401 && bare.headers("WWW-Authenticate") == [challenge] && bare.json["error"] == "missing_bearer_token")
            // The metadata it names.
            let document = try await browser.send(.GET, "/.well-known/oauth-protected-resource/api")
            #expect(document.status == 200 && document.json["resource"]?.stringValue == Self.resource)
            #expect(document.json["authorization_servers"] == .array([.string(providers[0].issuer)]))
            #expect(
                document.json["bearer_methods_supported"] == ["header"]
                    && document.json["scopes_supported"] == ["orders:read", "orders:write"])

            // A token for this resource: in; one minted for another resource: 401, with the challenge.
            let mine = try await Self.accessToken(from: providers[0], resource: Self.resource, scopes: ["orders:read"])
            let whoami = try await browser.send(.GET, "/api/whoami", headers: [("Authorization", "Bearer " + mine)])
            #expect(whoami.status == 200 && whoami.text == "alice", "\(whoami.text)")
            let other = try await Self.accessToken(from: providers[0], resource: "https://other.example/api", scopes: ["orders:read"])
            let refused = try await browser.send(.GET, "/api/whoami", headers: [("Authorization", "Bearer " + other)])
            #expect(refused.status == 401 && refused.json["error"] == "audience_mismatch")
            #expect(
                refused.headers("WWW-Authenticate") == [
                    "Bearer error=\"invalid_token\", resource_metadata=\"\(testOrigin)/.well-known/oauth-protected-resource/api\""
                ])
            // Without the route's scope: 403 insufficient_scope naming it, and the metadata.
            let unscoped = try await browser.send(.POST, "/api/orders", headers: [("Authorization", "Bearer " + mine)])
            #expect(unscoped.status == 403 && unscoped.json["error"] == "insufficient_scope")
            #expect(
                unscoped.headers("WWW-Authenticate") == [
                    "Bearer error=\"insufficient_scope\", scope=\"orders:write\", resource_metadata=\"\(testOrigin)/.well-known/oauth-protected-resource/api\""
                ])
            let scoped = try await Self.accessToken(from: providers[0], resource: Self.resource, scopes: ["orders:write"])
            #expect(try await browser.send(.POST, "/api/orders", headers: [("Authorization", "Bearer " + scoped)]).text == "ordered")
            // A malformed header: 400 invalid_request.
            let twice = try await browser.send(
                .GET, "/api/whoami", headers: [("Authorization", "Bearer a"), ("Authorization", "Bearer b")])
            #expect(twice.status == 400 && twice.json["error"] == "invalid_authorization_header")
        }
    }

    @Test func recentLoginAndStepUpGuards() async throws {
        let strict = AccountServiceConfiguration(issuer: testOrigin, recentLoginWindow: .seconds(0))
        try await withFederateApp(
            accountConfiguration: strict,
            extra: { app, configuration in
                let accounts = configuration.accounts
                app.grouped(SessionAuthenticationMiddleware(accounts: accounts, origin: testOrigin))
                    .grouped(RequireRecentLoginMiddleware(accounts: accounts, within: .seconds(0)))
                    .get("sensitive") { _ in "ok" }
                app.middleware.use(FederateErrorMiddleware())
                app.get("throws") { _ -> String in throw FederateError(.requiresRecentLogin, "sign in again") }
            }
        ) { app, _, _ in
            let browser = TestBrowser(app: app)
            _ = try await browser.navigate("/auth/dev/start")
            try await Task.sleep(for: .milliseconds(1100))
            let cookie = try await browser.send(.GET, "/sensitive")
            #expect(cookie.status == 403 && cookie.json["error"] == "requires_recent_login", "\(cookie.text)")
            // An app's bearer session token gets RFC 9470's challenge instead.
            let token = try #require(browser.cookie("federate_session"))
            let bearer = try await browser.send(.GET, "/sensitive", headers: [("Authorization", "Bearer " + token)])
            #expect(
                bearer.status == 401
                    && bearer.header("WWW-Authenticate")?.hasPrefix("Bearer error=\"insufficient_user_authentication\"") == true)
            // A handler's FederateError answers as Federate's JSON, not Vapor's {"error": true}.
            let thrown = try await browser.send(.GET, "/throws")
            #expect(thrown.status == 403 && thrown.json["error"] == "requires_recent_login" && thrown.json["message"] == "sign in again")
        }
    }
}
