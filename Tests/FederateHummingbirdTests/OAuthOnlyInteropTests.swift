import Federate
import FederateHummingbird
import FederateOAuth2
import FederateOIDC
import FederateTestSupport
import Foundation
import Testing

/// The OAuth-only flow, RP-initiated logout, client credentials and token exchange against
/// servers nobody here wrote: django-oauth-toolkit as a plain OAuth 2.0 server with a user
/// endpoint (`Tests/Interop/dot_service.py`), Authlib's authorization server
/// (`Tests/Interop/authlib_as.py`), and idpy-oidc's end-session endpoint and token exchange
/// (`Tests/Interop/idpy_provider.py`). Needs the interop venv (`Tests/Interop/venv.sh`); a
/// missing Python fails the tests, never skips them.
@Suite("Interop: OAuth 2.0 providers, logout and service grants", .serialized)
struct OAuthOnlyInteropTests {
    static func start(_ arguments: [String]) async throws -> (InteractiveCLI, String) {
        let root = try ExternalProcess.packageRoot()
        let python = try await InteropPython.prepare(root: root)
        let process = try InteractiveCLI(executable: python, arguments: arguments, directory: root.path)
        return (process, try #require(await process.nextLine(), "\(arguments.first ?? "") printed nothing"))
    }

    /// Waits until `url` answers (runserver listens only after its JSON line).
    static func waitUntilAnswering(_ url: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? await PatientTransport.shared.send(Federate.HTTPRequest(url: url))) != nil { return }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// django-oauth-toolkit, no `openid`: its RFC 8414 document (appended to the issuer, where
    /// DOT serves it), the code flow with PKCE and RFC 9207 `iss`, its `protected_resource` user
    /// endpoint (a numeric id), revocation; and its client-credentials grant, through the cache
    /// and through `federate token client-credentials`.
    @Test(.timeLimit(.minutes(20)))
    func djangoOAuthToolkitAsAPlainOAuth2Server() async throws {
        let serverPort = try FreePort.loopback(), dotPort = try FreePort.loopback()
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("federate-dot-service-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: runtime) }
        let (dot, line) = try await Self.start([
            "Tests/Interop/dot_service.py", "--port", String(dotPort), "--runtime-dir", runtime.path,
            "--redirect-uri", "http://127.0.0.1:\(serverPort)/auth/dot/callback",
        ])
        let info = try JSONParser().parseObject(Array(line.utf8))
        let issuer = try #require(info["issuer"]?.stringValue), userEndpoint = try #require(info["user_endpoint"]?.stringValue)
        let secret = try #require(info["clients"]?["federate-oauth2"]?.stringValue)
        let serviceSecret = try #require(info["clients"]?["federate-service"]?.stringValue)
        try await Self.waitUntilAnswering(issuer + "/.well-known/oauth-authorization-server")

        let cache = ProviderCache(httpClient: PatientTransport.shared)
        let metadata = try await cache.authorizationServers.metadata(for: issuer)
        #expect(metadata.authorizationResponseIssParameterSupported && metadata.revocationEndpoint != nil)
        let provider = try OAuth2Provider(
            id: "oauth2.dot", server: .issuer(issuer), userEndpoint: userEndpoint, clientID: "federate-oauth2", clientSecret: secret,
            scopes: ["read"], fields: OAuth2UserFields(username: "username"), cache: cache)
        let accounts = AccountService(
            store: InMemoryAccountStore(),
            providerTokens: try ProviderTokenVault(keys: try SealingKeyRing([.generate(id: "t")]), providers: [provider]))
        try await RoutesServer.run(port: serverPort, providers: ["dot": provider], accounts: accounts) { origin in
            let browser = TestBrowser()
            let landed = try await browser.navigate(origin + "/auth/dot/start", origin: origin)
            #expect(String(decoding: landed.body, as: UTF8.self) == "home", "\(browser.history)")
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["email"] == "alice@example.com" && me["recent_login"] == false, "\(me)")
            let uid = try #require(me["uid"]?.stringValue)
            let identity = try #require(try await accounts.user(uid: uid).identity(providerID: "oauth2.dot"))
            #expect(identity.subject == String(info["user_id"]?.int64Value ?? -1) && identity.profile.username == "alice")
            let authorize = try #require(browser.history.first { $0.hasPrefix(issuer + "/authorize/") })
            #expect(authorize.contains("code_challenge_method=S256") && !authorize.contains("openid"))
            // Revocation at DOT's endpoint: the user endpoint refuses the token afterwards.
            let accessToken = try await accounts.accessToken(for: uid, providerID: "oauth2.dot")
            try await provider.revoke(ProviderTokens(accessToken: accessToken))
            let revoked = await #expect(throws: FederateError.self) { try await provider.credential(accessToken: accessToken) }
            #expect(revoked?.code == .unexpectedStatus)
        }

        // Client credentials at DOT, shared by the cache; a wrong secret is DOT's invalid_client.
        let service = try ServiceTokenClient(
            metadata: metadata, clientID: "federate-service", authentication: .clientSecretBasic(secret: serviceSecret),
            httpClient: PatientTransport.shared)
        let tokens = ServiceTokenCache(client: service)
        let first = try await tokens.token(scopes: ["reports"])
        #expect(first.scopes == ["reports"] && first.tokenType == "Bearer" && first.expiresAt != nil)
        #expect(try await tokens.token(scopes: ["reports"]).token == first.token)
        let post = try ServiceTokenClient(
            metadata: metadata, clientID: "federate-service", authentication: .clientSecretPost(secret: serviceSecret),
            httpClient: PatientTransport.shared)
        #expect(try await post.clientCredentials(scopes: ["reports"]).token != first.token)
        let wrong = try ServiceTokenClient(
            metadata: metadata, clientID: "federate-service", authentication: .clientSecretBasic(secret: "wrong"),
            httpClient: PatientTransport.shared)
        let refused = await #expect(throws: FederateError.self) { try await wrong.clientCredentials() }
        #expect(refused?.code == .invalidClient)
        let cli = try await CLIProcess.run(
            ["token", "client-credentials", "--issuer", issuer, "--client-id", "federate-service", "--scope", "reports"],
            environment: ["FEDERATE_CLIENT_SECRET": serviceSecret])
        let printed = try? JSONParser().parseObject(Array(cli.stdout.utf8))
        #expect(cli.status == 0 && printed?["scope"] == "reports", "\(cli.stdout) \(cli.stderr)")
        await dot.terminate()
    }

    /// Authlib's authorization server: RFC 8414 metadata at the RFC's own location, PKCE
    /// required, client_secret_basic, RFC 9207 `iss`, its ResourceProtector at the user endpoint.
    @Test(.timeLimit(.minutes(20)))
    func authlibAuthorizationServer() async throws {
        let serverPort = try FreePort.loopback(), asPort = try FreePort.loopback()
        let (authlib, ready) = try await Self.start([
            "Tests/Interop/authlib_as.py", "--port", String(asPort), "--client-id", "federate", "--client-secret", "authlib-secret",
            "--redirect-uri", "http://127.0.0.1:\(serverPort)/auth/authlib/callback",
        ])
        let issuer = "http://127.0.0.1:\(asPort)"
        try #require(ready == "READY " + issuer, "authlib_as.py: \(ready)")
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        let provider = try OAuth2Provider(
            id: "oauth2.authlib", server: .issuer(issuer), userEndpoint: issuer + "/api/user", clientID: "federate",
            clientSecret: "authlib-secret",
            scopes: ["profile", "email"], fields: OAuth2UserFields(username: "login"), cache: cache)
        let accounts = AccountService(store: InMemoryAccountStore())
        try await RoutesServer.run(port: serverPort, providers: ["authlib": provider], accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/authlib/start", origin: origin)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            #expect(me["email"] == "alice@example.com" && me["display_name"] == "Alice Authlib" && me["email_verified"] == true, "\(me)")
            let user = try await accounts.user(uid: try #require(me["uid"]?.stringValue))
            #expect(user.identity(providerID: "oauth2.authlib")?.subject == "4242")
            // A callback whose iss is another server's is refused before any token request.
            let built = try await provider.beginSignIn(try SignInRequest(redirectURI: origin + "/auth/authlib/callback"))
            let mixUp = AuthorizationResponse(parameters: ["code": "c", "state": built.pending.state, "iss": "http://127.0.0.1:1"])
            let refused = await #expect(throws: FederateError.self) { try await provider.completeSignIn(mixUp, pending: built.pending) }
            #expect(refused?.code == .callbackIssuerMismatch)
            let missing = AuthorizationResponse(parameters: ["code": "c", "state": built.pending.state])
            let noIss = await #expect(throws: FederateError.self) { try await provider.completeSignIn(missing, pending: built.pending) }
            #expect(noIss?.code == .callbackIssuerMismatch)
        }
        await authlib.terminate()
    }

    /// idpy-oidc's end-session endpoint: signed in through the routes, signed out at idpy with the
    /// session's ID token as `id_token_hint` (idpy checks its signature, `aud` and `sub` against its
    /// own session, found by its cookie), back with the state checked; idpy runs its verified
    /// logout for that session (it prints `LOGOUT <sid> <state>`; idpyoidc 5.0.0 leaves the
    /// session's tokens usable, so that is not checked).
    /// And its RFC 8693 token exchange: a token for the one resource its policy allows, and
    /// `invalid_target` for another.
    @Test(.timeLimit(.minutes(20)))
    func idpyEndSessionAndTokenExchange() async throws {
        let serverPort = try FreePort.loopback(), opPort = try FreePort.loopback()
        let secret = "idpy-secret-idpy-secret-idpy-secret"
        let (op, ready) = try await Self.start([
            "Tests/Interop/idpy_provider.py", "--port", String(opPort), "--client-id", "federate-rp", "--client-secret", secret,
            "--redirect-uri", "http://127.0.0.1:\(serverPort)/auth/idpy/callback",
            "--post-logout-redirect-uri", "http://127.0.0.1:\(serverPort)/auth/signout/callback", "--token-exchange",
        ])
        let issuer = "http://127.0.0.1:\(opPort)"
        try #require(ready == "READY " + issuer, "idpy_provider.py: \(ready)")
        let cache = ProviderCache(httpClient: PatientTransport.shared)
        let idpy = try OIDCProvider(id: "oidc.idpy", issuer: issuer, clientID: "federate-rp", clientSecret: secret, cache: cache)
        let accounts = AccountService(
            store: InMemoryAccountStore(),
            providerTokens: try ProviderTokenVault(keys: try SealingKeyRing([.generate(id: "t")]), providers: [idpy]))
        try await RoutesServer.run(port: serverPort, providers: ["idpy": idpy], accounts: accounts) { origin in
            let browser = TestBrowser()
            _ = try await browser.navigate(origin + "/auth/idpy/start", origin: origin)
            let me = try JSONParser().parseObject(try await browser.send(origin + "/me").body)
            let accessToken = try await accounts.accessToken(for: try #require(me["uid"]?.stringValue), providerID: "oidc.idpy")
            let client = try await idpy.client()
            #expect(client.metadata.endSessionEndpoint == issuer + "/session")

            // Token exchange first, while idpy's session lives.
            let service = try ServiceTokenClient(
                metadata: AuthorizationServerMetadata(client.metadata), clientID: "federate-rp",
                authentication: .clientSecretBasic(secret: secret),
                httpClient: PatientTransport.shared)
            let exchanged = try await service.exchange(
                TokenExchangeRequest(subjectToken: accessToken, resources: ["https://orders.example/api"]))
            #expect(
                exchanged.issuedTokenType == TokenExchangeRequest.TokenType.accessToken && exchanged.tokenType == "Bearer"
                    && exchanged.token != accessToken)
            let target = await #expect(throws: FederateError.self) {
                try await service.exchange(TokenExchangeRequest(subjectToken: accessToken, resources: ["https://other.example/api"]))
            }
            #expect(target?.code == .invalidTarget)
            let unknown = await #expect(throws: FederateError.self) {
                try await service.exchange(TokenExchangeRequest(subjectToken: "not-idpys"))
            }
            #expect(unknown?.code == .invalidRequest)

            let csrf = try #require(me["csrf_token"]?.stringValue)
            let answer = try JSONParser().parseObject(
                try await browser.send(origin + "/auth/signout", method: "POST", headers: [("Origin", origin), ("X-CSRF-Token", csrf)]).body
            )
            let url = try #require(answer["end_session_url"]?.stringValue)
            #expect(url.hasPrefix(issuer + "/session?") && url.contains("id_token_hint="), "\(url)")
            let query = try FormURLEncoding.decode(try #require(URLComponents(string: url)?.percentEncodedQuery))
            let state = try #require(query["state"])
            let back = try await browser.navigate(url, origin: origin)
            #expect(
                String(decoding: back.body, as: UTF8.self) == "home" && browser.history.contains(origin + "/?signed_out=provider"),
                "\(browser.history)")
            let logout = try #require(await op.nextLine())
            #expect(logout.hasPrefix("LOGOUT ") && logout.hasSuffix(" " + state), "\(logout)")
        }
        await op.terminate()
    }
}
