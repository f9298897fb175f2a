import Federate
import FederateDevProvider
import FederateHummingbird
import FederateTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import FederateRelyingParty

/// The API middleware with the dev provider's real tokens: RFC 9068 access tokens verified
/// locally and opaque ones introspected (RFC 7662), ID tokens beside them, per-route scopes,
/// and RFC 6750 answers for every refusal.
@Suite("Access tokens for APIs")
struct AccessTokenMiddlewareTests {
    static let resource = "https://api.orders.test/"

    /// Tokens for alice from `provider`'s code flow, as `clientID`, asking for `resource` when given.
    static func tokens(
        _ provider: DevProvider, resource: String?, scopes: [String] = ["openid", "email", "orders:read"]
    ) async throws -> TokenSet {
        let client = try await client(provider).withResources(resource.map { [$0] } ?? [])
        let built = try await client.authorizationRequest(
            providerID: "oidc.dev", redirectURI: "http://127.0.0.1:9/callback", scopes: scopes)
        let redirect = try await PatientTransport.shared.send(Federate.HTTPRequest(url: built.url))
        return try await client.finish(
            try AuthorizationResponse(redirectURL: try #require(redirect.header("Location"))), pending: built.pending
        ).tokens
    }

    static func client(_ provider: DevProvider, id: String = "dev-client", secret: String? = "dev-secret") async throws -> OpenIDClient {
        let metadata = try await DiscoveryClient(httpClient: PatientTransport.shared).metadata(for: provider.issuer)
        return try OpenIDClient(
            metadata: metadata, clientID: id, authentication: secret.map { .clientSecretBasic(secret: $0) } ?? .none,
            httpClient: PatientTransport.shared)
    }

    /// An API: `/api/whoami` for any caller, `/api/orders` needing `orders:read`, `/api/admin` needing `orders:admin`.
    static func router(_ verifier: any TokenVerifier) -> Router<FederateContext> {
        let router = Router(context: FederateContext.self)
        let api = router.group("api").add(middleware: BearerAuthenticationMiddleware(verifier: verifier))
        api.get("whoami") { _, context in
            let caller = context.federate.caller
            return
                "\(caller?.kind.rawValue ?? "-") \(caller?.subject ?? "-") \(caller?.clientID ?? "-") \(caller?.scopes.description ?? "-") \(caller?.idToken?.subject ?? "-")"
        }
        api.group("orders").add(middleware: RequiredScopesMiddleware(["orders:read"])).get { _, _ in "orders" }
        api.group("admin").add(middleware: RequiredScopesMiddleware(["orders:admin", "orders:read"])).get { _, _ in "admin" }
        return router
    }

    static func get(_ client: some TestClientProtocol, _ path: String, _ authorization: [String]) async throws -> (Int, String, [String]) {
        var headers = HTTPFields()
        headers[values: .authorization] = authorization
        return try await client.execute(uri: path, method: .get, headers: headers) { response in
            (response.status.code, String(buffer: response.body), response.headers[values: .wwwAuthenticate])
        }
    }

    @Test func jwtAccessTokensAndIDTokensSideBySide() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let client = try await Self.client(provider)
        let verifier = CallerTokenRouter(
            idTokens: IDTokenBearerVerifier(providerID: "oidc.dev", verifier: client.idTokenVerifier),
            accessTokens: client.accessTokenVerifier(resource: Self.resource, providerID: "oidc.dev"))
        let forAPI = try await Self.tokens(provider, resource: Self.resource)
        let forDefault = try await Self.tokens(provider, resource: nil)
        let accessToken = forAPI.accessToken, idToken = try #require(forAPI.idToken)
        #expect(accessToken.split(separator: ".").count == 3)

        try await Application(router: Self.router(verifier)).test(.router) { http in
            var (status, body, challenges) = try await Self.get(http, "/api/whoami", ["Bearer " + accessToken])
            #expect(status == 200 && body == "access_token alice dev-client openid email orders:read -", "\(body)")
            (status, body, _) = try await Self.get(http, "/api/whoami", ["bearer " + idToken])
            #expect(status == 200 && body == "id_token alice dev-client  alice", "\(body)")
            (status, body, _) = try await Self.get(http, "/api/orders", ["Bearer " + accessToken])
            #expect(status == 200 && body == "orders")
            (status, body, challenges) = try await Self.get(http, "/api/admin", ["Bearer " + accessToken])
            #expect(status == 403 && body.contains("\"insufficient_scope\""))
            #expect(challenges == ["Bearer error=\"insufficient_scope\", scope=\"orders:admin orders:read\""])
            (status, _, challenges) = try await Self.get(http, "/api/orders", ["Bearer " + idToken])  // an ID token grants no scope
            #expect(status == 403 && challenges.first?.contains("insufficient_scope") == true)
            // Issued for another resource (the provider's default audience): refused.
            (status, body, challenges) = try await Self.get(http, "/api/whoami", ["Bearer " + forDefault.accessToken])
            #expect(status == 401 && body.contains("\"audience_mismatch\"") && challenges == ["Bearer error=\"invalid_token\""])
            // No credentials, or another scheme's: the bare challenge, no error code (RFC 6750 §3.1).
            (status, body, challenges) = try await Self.get(http, "/api/whoami", [])
            #expect(status == 401 && body.contains("\"missing_bearer_token\"") && challenges == ["Bearer"])
            (status, body, challenges) = try await Self.get(http, "/api/whoami", ["Basic YTpi"])
            #expect(status == 401 && body.contains("\"missing_bearer_token\"") && challenges == ["Bearer"])
            for malformed in [
                ["Bearer " + accessToken + " x"], ["Bearer "], ["Bearer  " + accessToken], ["Bearer a=b"],
                ["Bearer " + accessToken, "Bearer " + accessToken],
            ] {
                (status, body, challenges) = try await Self.get(http, "/api/whoami", malformed)
                #expect(
                    status == 400 && body.contains("\"invalid_authorization_header\"") && challenges == ["Bearer error=\"invalid_request\""]
                )
            }
        }

        // typ confusion through the router: each kind only where it is configured.
        try await Application(router: Self.router(CallerTokenRouter(accessTokens: client.accessTokenVerifier(resource: Self.resource))))
            .test(.router) { http in
                let (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer " + idToken])
                #expect(status == 401 && body.contains("\"token_type_mismatch\""))
            }
        try await Application(router: Self.router(IDTokenBearerVerifier(providerID: "oidc.dev", verifier: client.idTokenVerifier))).test(
            .router
        ) { http in
            let (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer " + accessToken])
            #expect(status == 401 && body.contains("\"token_type_mismatch\""))
        }
    }

    /// The dev provider's introspection looks tokens up by their bytes: a look-alike of an
    /// opaque token (U+212A KELVIN SIGN for `K`) is inactive before and after its twin.
    @Test func aLookAlikeOpaqueTokenIsInactive() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.accessTokenFormat = .opaque
        let provider = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await provider.stop() } }
        let introspection = try await Self.client(provider).introspectionClient(resource: nil, providerID: "oidc.dev", cachePolicy: .none)
        var token = ""
        for _ in 0..<20 where !token.contains("K") { token = try await Self.tokens(provider, resource: nil).accessToken }
        try #require(token.contains("K"))
        let lookAlike = token.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(try await introspection.introspect(lookAlike).active == false)
        #expect(try await introspection.introspect(token).active)
        #expect(try await introspection.introspect(lookAlike).active == false)
    }

    @Test func opaqueTokensAreIntrospectedWithClientAuthentication() async throws {
        var configuration = DevProviderConfiguration.standard
        configuration.accessTokenFormat = .opaque
        configuration.accessTokenResource = Self.resource
        let provider = try await DevProvider.start(configuration: configuration)
        defer { Task { try? await provider.stop() } }
        let client = try await Self.client(provider)
        #expect(client.metadata.introspectionEndpoint == provider.issuer + "/introspect")
        let introspection = try client.introspectionClient(resource: Self.resource, providerID: "oidc.dev", cachePolicy: .none)
        let tokens = try await Self.tokens(provider, resource: nil)
        #expect(tokens.accessToken.split(separator: ".").count == 1)
        let publicClient = try await Self.client(provider, id: "dev-public", secret: nil)
        let wrongSecret = try await Self.client(provider, secret: "wrong")

        try await Application(router: Self.router(CallerTokenRouter(introspection: introspection))).test(.router) { http in
            var (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer " + tokens.accessToken])
            #expect(status == 200 && body == "introspection alice dev-client openid email orders:read -", "\(body)")
            (status, body, _) = try await Self.get(http, "/api/orders", ["Bearer " + tokens.accessToken])
            #expect(status == 200)
            (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer never-issued"])
            #expect(status == 401 && body.contains("\"token_inactive\""))
            (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer " + (tokens.refreshToken ?? "")])
            #expect(status == 401 && body.contains("\"token_inactive\""))  // a refresh token is no access token
            try await client.revoke(tokens.accessToken)
            (status, body, _) = try await Self.get(http, "/api/whoami", ["Bearer " + tokens.accessToken])
            #expect(status == 401 && body.contains("\"token_inactive\""))
        }
        // A client that cannot authenticate cannot introspect: the token's state is unknown, 503.
        for rs in [publicClient, wrongSecret] {
            let failing = try rs.introspectionClient(resource: Self.resource)
            try await Application(router: Self.router(failing)).test(.router) { http in
                let (status, body, challenges) = try await Self.get(http, "/api/whoami", ["Bearer " + tokens.accessToken])
                #expect(status == 503 && body.contains("\"introspection_failed\"") && challenges.isEmpty, "\(body)")
            }
        }
    }

    @Test func jwtAccessTokensCanBeIntrospectedToo() async throws {
        let provider = try await DevProvider.start()
        defer { Task { try? await provider.stop() } }
        let client = try await Self.client(provider)
        let tokens = try await Self.tokens(provider, resource: Self.resource)
        let caller = try await client.introspectionClient(resource: Self.resource).verify(tokens.accessToken)
        #expect(caller.kind == .introspection && caller.subject == "alice" && caller.scopes.contains("orders:read"))
        let other = try client.introspectionClient(resource: "https://other.test/")
        await #expect(throws: FederateError.self) { try await other.verify(tokens.accessToken) }
    }

    @Test func aKeyBoundTokenIsNotABearerToken() async throws {
        struct Bound: TokenVerifier {
            func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
                VerifiedToken(
                    kind: .accessToken, providerID: nil, issuer: nil, subject: "alice", clientID: "c", scopes: [], expiresAt: nil,
                    confirmation: try TokenConfirmation(json: ["jkt": .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))]),
                    claims: [:])
            }
        }
        try await Application(router: Self.router(Bound())).test(.router) { http in
            let (status, body, challenges) = try await Self.get(http, "/api/whoami", ["Bearer abc"])
            #expect(status == 401 && body.contains("\"token_binding_mismatch\"") && challenges == ["Bearer error=\"invalid_token\""])
        }
    }
}
