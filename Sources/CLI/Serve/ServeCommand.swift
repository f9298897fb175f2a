import ArgumentParser
import Crypto
import Federate
import FederateApple
import FederateDevProvider
import FederateGitHub
import FederateGoogle
import FederateHummingbird
import FederateMCP
import FederateMicrosoft
import FederateOAuth2
import FederateOIDC
import FederatePostgres
import FederateSQLite
import Foundation
import Hummingbird
import Logging
import NIOPosix
import PostgresNIO
import Prometheus
import ServiceLifecycle
import Tracing

/// `federate serve`: the reference app — federated login, linking, reauthentication and
/// account deletion on Hummingbird, with small HTML pages and the JSON API.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the reference app: federated sign-in, linking and account deletion (see Docs/Server.md).",
        discussion: """
            Without --config: the dev provider runs in process in its generic, Google, Apple and GitHub flavours (four \
            providers, a user picker instead of passwords), accounts live in ./federate-demo.sqlite, and the app \
            listens on http://127.0.0.1:PORT. GET /api/whoami takes the generic dev provider's ID tokens as bearer tokens. \
            Prints {"url": URL, "providers": [...]} on standard output once it listens.
            """
    )

    @Option(help: "A JSON configuration file (Docs/Server.md); secrets come from the environment variables it names.")
    var config: String?

    @Option(help: "The port to listen on (default 8080, or the file's).")
    var port: Int?

    @Option(help: "How recent a sign-in must be, in seconds, to unlink a provider or delete the account (default 300, or the file's).")
    var recentLoginSeconds: Double?

    func run() async throws {
        do {
            var settings = ServeConfiguration()
            if let config {
                guard let data = FileManager.default.contents(atPath: config) else {
                    throw FederateError(.invalidConfiguration, "cannot read '\(config)'")
                }
                settings = try ServeConfiguration(json: Array(data), environment: ProcessInfo.processInfo.environment)
            }
            if let port {
                guard (0...65_535).contains(port) else {
                    throw FederateError(.invalidConfiguration, "--port is a whole number from 0 to 65535")
                }
                settings.port = port
            }
            if let recentLoginSeconds {
                try ServeConfiguration.checkRecentLoginSeconds(recentLoginSeconds)
                settings.recentLoginSeconds = recentLoginSeconds
            }
            // Swift tasks run on the server's event loops, so a request is read, handled and
            // answered on one thread: no switch to Swift's own pool and back per request
            // (Docs/Performance.md, "The server"). Only this command, once, in its own process.
            NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            try await Self.serve(settings)
        } catch {
            throw CLIOutput.fail(error)
        }
    }

    static func serve(_ settings: ServeConfiguration) async throws {
        let logger = Logger(label: "federate.serve")
        // A taken port fails at once, before anything starts (dev providers, the store, the
        // warmer), so there is nothing to wind down: `address_in_use`, exit 1.
        try await checkPortIsFree(settings.port)
        // Metrics go to this server's own registry, served at /metrics when enabled; spans to
        // whatever tracer the process bootstrapped (none: spans cost nothing).
        let registry = PrometheusCollectorRegistry()
        let observability =
            settings.metrics.enabled
            ? Observability(metrics: PrometheusMetricsFactory(registry: registry), tracer: InstrumentationSystem.tracer) : Observability()
        let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared, logger: logger, observability: observability)
        let origin = settings.origin ?? "http://127.0.0.1:\(settings.port)"
        // Checked before anything starts: a bad passkey setting fails at once.
        let passkeys = try settings.passkeys.configuration(origin: origin)
        var devProviders: [DevProvider] = []
        var providers: [String: any SignInProvider] = [:]
        var buttons: [DemoPage.Provider] = []
        for entry in settings.providers {
            switch entry {
            case .dev(let name, let flavorName):
                guard let flavor = DevFlavor(rawValue: flavorName) else {
                    throw FederateError(.invalidConfiguration, "unknown dev flavour '\(flavorName)'")
                }
                var configuration = devConfiguration(
                    flavor, name: name, origin: origin, servesMCPClients: settings.mcp?.provider == name)
                if let access = settings.apiAccessTokens, access.provider == name {
                    configuration.accessTokenResource = access.resolvedResource(origin: origin)
                }
                let dev = try await DevProvider.start(configuration: configuration)
                devProviders.append(dev)
                providers[name] = try devSignIn(dev, flavor: flavor, cache: cache)
                buttons.append(
                    DemoPage.Provider(
                        name: name, label: settings.label(of: name) ?? devLabel(flavor), providerID: providers[name]?.providerID ?? "",
                        reauthenticates: flavor != .github))
            default:
                guard let external = try externalProvider(entry, cache: cache) else { continue }
                providers[entry.name] = external.provider
                buttons.append(
                    DemoPage.Provider(
                        name: entry.name, label: settings.label(of: entry.name) ?? external.label, providerID: external.provider.providerID,
                        reauthenticates: external.reauthenticates))
            }
        }

        var postgres: PostgresClient?
        let store: any AccountStore
        switch settings.store {
        case .sqlite(let path):
            // A request waits at most about 2 s for another process's lock on the file, then answers 503.
            store = try await SQLiteAccountStore.open(path: path, busyTimeout: .seconds(2))
        case .postgres(let url, let schema):
            let client = PostgresClient(configuration: try postgresConfiguration(url), backgroundLogger: logger)
            postgres = client
            store = try PostgresAccountStore(client: client, schema: schema)
        }
        let key = settings.sealingKey.map { SymmetricKey(data: $0) } ?? SymmetricKey(size: .bits256)
        let notes = DemoNotes()
        let accounts = AccountService(
            store: store,
            configuration: AccountServiceConfiguration(
                issuer: origin, recentLoginWindow: .seconds(settings.recentLoginSeconds),
                guestLifetime: .seconds(settings.guestSettings.lifetimeDays * 24 * 3600),
                maximumLiveGuests: settings.guestSettings.maximumLive, passkeys: passkeys),
            observability: observability, providerTokens: try Self.providerTokenVault(settings, sealingKey: key, providers: providers),
            onMerge: { merge in notes.move(from: merge.sourceUID, to: merge.targetUID) })
        var configuration = try FederateServerConfiguration(
            origin: origin, providers: providers, accounts: accounts,
            sealer: PendingAuthorizationSealer(keys: try SealingKeyRing([.init(id: "k1", key: key)])))
        configuration.allowsGuests = settings.guests
        configuration.guestRateLimit = settings.guestSettings.rateLimit
        configuration.trustedProxies = settings.guestSettings.trustedProxies

        let router = Router(context: FederateContext.self)
        // Every route is checked against those mounted before it: an overlap is
        // `invalid_configuration` naming both, never a router's trap.
        try FederateRoutes<FederateContext>(configuration: configuration, logger: logger).register(on: router)
        notes.register(on: router, accounts: accounts, origin: origin)
        if settings.providerTokenRoute {
            ProviderTokenRoute(accounts: accounts, providers: configuration.providers).register(on: router, origin: origin)
        }
        HealthRoutes<FederateContext>(readiness: Readiness(configuration: configuration), logger: logger).register(on: router)
        MetricsRoute(registry: registry, settings: settings.metrics).register(on: router)
        var protectedResources: [ProtectedResourceMetadata] = []
        if let verifier = try await apiVerifier(settings, providers: configuration.providers, origin: origin, logger: logger) {
            // An API for apps: ID tokens of api_bearer_provider and access tokens as api_access_tokens says, verified on every request.
            let presentations = try apiPresentations(settings, store: store, origin: origin)
            let metadata = try await apiMetadata(
                settings, providers: configuration.providers, presentations: presentations, origin: origin, logger: logger)
            if let metadata { protectedResources.append(metadata) }
            let api = router.group("api").add(
                middleware: BearerAuthenticationMiddleware<FederateContext>(
                    verifier: verifier, presentations: presentations, resource: metadata))
            // Each route behind its own required scopes (api_access_tokens.required_scopes); a
            // route that requires none has no scope middleware (no step added per request).
            let scopes = settings.apiAccessTokens?.requiredScopes ?? [:]
            let whoami =
                scopes["/api/whoami"].map {
                    api.group("whoami").add(middleware: RequiredScopesMiddleware($0, presentations: presentations, resource: metadata))
                } ?? api.group("whoami")
            whoami.get { _, context in
                Response(
                    status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(Self.whoami(context.federate.caller)))))
            }
        }
        ProtectedResourceRoutes<FederateContext>(protectedResources).register(on: router)
        if let mcp = settings.mcp {
            // The demo MCP server (Docs/MCP.md): its own resource, tools with their own scopes.
            let server = try await mcpServer(
                mcp, providers: configuration.providers, origin: origin, cache: settings.verifiedTokenCache)
            try ServerRoutes<FederateContext>(server.routes, owner: "the MCP server").register(on: router)
        }
        let page = DemoPage.html(providers: buttons, guests: settings.guests, passkeys: passkeys != nil)
        let names = buttons.map { JSONValue.string($0.name) }
        try RouteOverlap.check("GET", "/", against: router.federateMountedRoutes, owner: "the reference app's page")
        router.get("/") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: settings.port), serverName: "federate-serve"),
            onServerRunning: { _ in
                // Browsers refuse an IP address as RP ID: passkeys need a host-name origin.
                CLIOutput.line([
                    "url": .string(origin + "/"), "providers": .array(names),
                    "passkeys": passkeys.map { .string("on (RP ID \($0.relyingPartyID))") }
                        ?? .string("off: serve at a host name (\"origin\": \"http://localhost:\(settings.port)\") for passkeys"),
                ])
            },
            logger: logger)
        // One group: SIGINT and SIGTERM stop the server first, then the store and the
        // PostgreSQL client (services stop in reverse order), then the dev providers.
        var services: [any Service] = []
        if let postgres { services.append(postgres) }
        if let sqlite = store as? SQLiteAccountStore { services.append(sqlite) }
        let migrate: @Sendable () async throws -> Void = {
            if let store = store as? PostgresAccountStore { try await store.migrate() }
            // Tokens a 0.1 store kept in the clear are sealed (or erased) before anyone signs in.
            while try await accounts.sealPlaintextProviderTokens() > 0 {}
            // Merges whose hook an instance did not finish (it stopped first).
            try await accounts.resumePendingMerges()
        }
        services.append(AfterPreparing(prepare: migrate, service: app))
        if settings.guests { services.append(GuestPruning(accounts: accounts, notes: notes, logger: logger)) }
        // Last in, first stopped: it fetches the providers' discovery documents and keys, so
        // /readyz turns ready, and keeps them fresh.
        services.append(ProviderWarmer(providers: configuration.providers, logger: logger))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // A shutdown always ends, within a container's usual 30 s grace period: what has not
        // drained 20 s after the signal is cancelled, and what ignores that 5 s later ends the
        // process (swift-service-lifecycle's fatalError) rather than leave it running for ever.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(20)
        groupConfiguration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        var failure: (any Error)?
        do {
            try await group.run()
        } catch {
            failure = error
        }
        for dev in devProviders { try? await dev.stop() }
        if let failure { throw FederateError.addressInUse(failure, address: "127.0.0.1:\(settings.port)") ?? failure }
    }

    /// Throws `address_in_use` when another process listens on `port` of 127.0.0.1 (port 0
    /// picks a free one). Bound as the server binds it (`SO_REUSEADDR`), then closed at once.
    static func checkPortIsFree(_ port: Int) async throws {
        guard port != 0 else { return }
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .bind(host: "127.0.0.1", port: port).get()
        } catch {
            throw FederateError.addressInUse(error, address: "127.0.0.1:\(port)") ?? error
        }
        try await channel.close()
    }

    /// The provider of a configuration entry that is not a dev provider, what its button says
    /// by default, and whether it can prove a fresh sign-in (the demo page offers re-sign-ins
    /// only with those); `nil` for a dev provider (which runs inside `serve`).
    static func externalProvider(
        _ entry: ServeConfiguration.ProviderEntry, cache: ProviderCache
    ) throws(FederateError) -> (provider: any SignInProvider, label: String, reauthenticates: Bool)? {
        switch entry {
        case .dev:
            return nil
        case .google(_, let clientID, let secret):
            return (GoogleProvider(clientID: clientID, clientSecret: secret, cache: cache), "Google", true)
        case .apple(_, let servicesID, let teamID, let keyID, let pem):
            return (
                try AppleProvider(servicesID: servicesID, teamID: teamID, keyID: keyID, privateKeyPEM: pem, cache: cache), "Apple", true
            )
        case .microsoft(_, let clientID, let secret, let audience, let authorityHost):
            let provider = try MicrosoftProvider(
                clientID: clientID, clientSecret: secret, audience: audience,
                endpoints: authorityHost.map(MicrosoftEndpoints.at) ?? .microsoft,
                cache: cache)
            return (provider, "Microsoft", true)
        case .github(_, let clientID, let secret, let enterprise):
            let provider = try GitHubProvider(
                clientID: clientID, clientSecret: secret, endpoints: try enterprise.map(GitHubEndpoints.enterprise) ?? .github, cache: cache
            )
            return (provider, "GitHub", false)
        case .oauth2(let entry):
            let provider = try OAuth2Provider(
                id: "oauth2.\(entry.name)", server: entry.server, userEndpoint: entry.userEndpoint, clientID: entry.clientID,
                clientSecret: entry.clientSecret, scopes: entry.scopes, fields: entry.fields, cache: cache)
            return (provider, entry.name, entry.fields.authTime != nil)
        case .oidc(let name, let issuer, let clientID, let secret, let privateNetwork):
            let provider = try OIDCProvider(
                id: "oidc.\(name)", issuer: issuer, clientID: clientID, clientSecret: secret,
                profile: StandardOpenIDProfile(privateNetworkAllowList: privateNetwork), cache: cache)
            return (provider, name, true)
        }
    }

    /// The vault every provider token is sealed in at rest: with the ring of
    /// `provider_token_keys_env` when given (needed by `"keep_tokens": true`), then a key
    /// derived from `sealingKey`, which opens what it sealed before such keys were configured
    /// (and seals when none are). `nil` (no tokens stored) without either.
    static func providerTokenVault(
        _ settings: ServeConfiguration, sealingKey: SymmetricKey?, providers: [String: any SignInProvider]
    ) throws(FederateError) -> ProviderTokenVault? {
        guard settings.keptTokenProviders.isEmpty || settings.providerTokenKeys != nil else {
            throw FederateError(.invalidConfiguration, "keep_tokens needs provider_token_keys_env: the keys the tokens are sealed with")
        }
        var keys = try settings.providerTokenKeys.map { (text) throws(FederateError) in try SealingKeyRing(parsing: text).keys } ?? []
        if let sealingKey {
            let derived = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: sealingKey, info: Array("federate provider tokens".utf8), outputByteCount: 32)
            keys.append(try .init(id: "from-sealing-key", key: derived))
        }
        guard !keys.isEmpty else { return nil }
        return try ProviderTokenVault(keys: try SealingKeyRing(keys), providers: settings.keptTokenProviders.compactMap { providers[$0] })
    }

    /// The API's verifier: `api_bearer_provider`'s ID tokens and `api_access_tokens`' access
    /// tokens side by side (`CallerTokenRouter`); `nil` when the file configures neither. The
    /// JWT verifiers remember the tokens they accepted as `verified_token_cache` says.
    static func apiVerifier(
        _ settings: ServeConfiguration, providers: ProviderRegistry, origin: String, logger: Logger
    ) async throws -> (any TokenVerifier)? {
        var idTokens: (any TokenVerifier)?
        if let name = settings.apiProvider {
            guard let entry = providers.entry(named: name), let source = entry.capabilities.bearerTokens else {
                throw FederateError(.invalidConfiguration, "api_bearer_provider '\(name)' is not a provider of this configuration")
            }
            // A bearer verifier discovers its issuer on first use; serve discovers the API's
            // issuer now, so a misconfigured one is a start failure (Docs/Server.md), not a 401 later.
            switch entry.provider {
            case let oidc as OIDCProvider: _ = try await oidc.client()
            case let microsoft as MicrosoftProvider: _ = try await microsoft.client()
            default: break
            }
            idTokens = source.bearerVerifier(cache: settings.verifiedTokenCache)
        }
        guard let access = settings.apiAccessTokens else { return idTokens }
        guard let oidc = providers.entry(named: access.provider)?.provider as? OIDCProvider else {
            throw FederateError(
                .invalidConfiguration, "api_access_tokens.provider '\(access.provider)' is not an OpenID provider of this configuration")
        }
        let client = try await oidc.client()
        let resource = access.resolvedResource(origin: origin)
        switch access.method {
        case .jwt:
            return CallerTokenRouter(
                idTokens: idTokens,
                accessTokens: client.accessTokenVerifier(resource: resource, providerID: oidc.id).caching(settings.verifiedTokenCache))
        case .introspection:
            return CallerTokenRouter(
                idTokens: idTokens,
                introspection: try introspectionClient(access, client: client, providerID: oidc.id, origin: origin, logger: logger))
        }
    }

    /// The API's RFC 9728 metadata, published at `/.well-known/oauth-protected-resource` (plus the
    /// resource's path) and named in its challenges: for `api_access_tokens` whose `resource` is an
    /// `https` URL (or `http` on loopback), with the provider's issuer, the routes' required
    /// scopes and, with DPoP, its algorithms. `nil` for ID tokens alone, or a resource that is
    /// not a URL (an RFC 8707 URN has no metadata document).
    static func apiMetadata(
        _ settings: ServeConfiguration, providers: ProviderRegistry, presentations: [any TokenPresentation], origin: String, logger: Logger
    ) async throws -> ProtectedResourceMetadata? {
        guard let access = settings.apiAccessTokens, let oidc = providers.entry(named: access.provider)?.provider as? OIDCProvider else {
            return nil
        }
        let issuer = try await oidc.client().metadata.issuer
        let scopes = OAuthScopes(access.requiredScopes.keys.sorted().flatMap { access.requiredScopes[$0]?.values ?? [] })
        let dpop = presentations.compactMap { $0 as? DPoPPresentation }.first
        do throws(FederateError) {
            return try ProtectedResourceMetadata(
                resource: access.resolvedResource(origin: origin), authorizationServers: [issuer], scopesSupported: scopes,
                dpopSigningAlgValuesSupported: dpop?.signingAlgorithms ?? [])
        } catch {
            // Not a start failure: the API works as before, its challenges naming no metadata.
            logger.notice("the API publishes no RFC 9728 metadata", metadata: ["reason": "\(error.message)"])
            return nil
        }
    }

    /// The demo MCP server of `mcp`: access tokens of its provider issued for its resource.
    static func mcpServer(
        _ mcp: MCPSettings, providers: ProviderRegistry, origin: String, cache: VerifiedTokenCacheConfiguration = .default
    ) async throws -> ProtectedMCPServer {
        guard let oidc = providers.entry(named: mcp.provider)?.provider as? OIDCProvider else {
            throw FederateError(.invalidConfiguration, "mcp.provider '\(mcp.provider)' is not an OpenID provider of this configuration")
        }
        let client = try await oidc.client()
        let resource = mcp.resolvedResource(origin: origin)
        let metadata = try ProtectedResourceMetadata(
            resource: resource, authorizationServers: [client.metadata.issuer],
            scopesSupported: OAuthScopes(DemoMCPServer.toolScopes.keys.sorted().flatMap { DemoMCPServer.toolScopes[$0]?.values ?? [] }),
            resourceName: "federate serve's demo MCP server")
        return try DemoMCPServer.protected(
            verifier: client.accessTokenVerifier(resource: resource, providerID: oidc.id).caching(cache), metadata: metadata)
    }

    /// The RFC 7662 client of `api_access_tokens`: at discovery's `introspection_endpoint`, else
    /// at the file's `introspection_endpoint` (a provider that advertises none, such as
    /// django-oauth-toolkit); `endpoint_not_available` when neither names one.
    static func introspectionClient(
        _ access: APIAccessSettings, client: OpenIDClient, providerID: String, origin: String, logger: Logger
    ) throws(FederateError) -> IntrospectionClient {
        let discovered = client.metadata.introspectionEndpoint
        if let configured = access.introspectionEndpoint, let discovered, !configured.exactlyEquals(discovered) {
            logger.warning("api_access_tokens.introspection_endpoint is ignored: discovery advertises introspection_endpoint")
        }
        guard let endpoint = discovered ?? access.introspectionEndpoint else {
            throw FederateError(
                .endpointNotAvailable,
                "the provider advertises no introspection_endpoint: name it with api_access_tokens.introspection_endpoint")
        }
        return try IntrospectionClient(
            endpoint: endpoint, clientID: access.clientID ?? client.clientID,
            authentication: access.clientSecret.map { .clientSecretBasic(secret: $0) } ?? client.authentication,
            resource: access.resolvedResource(origin: origin), issuer: client.metadata.issuer, providerID: providerID,
            cachePolicy: IntrospectionCachePolicy(activeCeiling: .seconds(access.cacheSeconds)),
            clockTolerance: client.policy.clockTolerance,
            httpClient: client.httpClient, clock: client.clock)
    }

    /// The schemes the API takes: `Bearer`, and `DPoP` too when `api_access_tokens.dpop` is on,
    /// with the account store as the replay store every instance shares and, with
    /// `dpop_nonces`, server nonces every proof must carry.
    static func apiPresentations(
        _ settings: ServeConfiguration, store: any AccountStore, origin: String
    ) throws(FederateError) -> [any TokenPresentation] {
        guard let access = settings.apiAccessTokens, access.dpop else { return [BearerPresentation()] }
        let nonces = try access.dpopNonces.map { (settings) throws(FederateError) in
            try DPoPNonces(
                secret: settings.secret ?? SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) },
                lifetime: .seconds(settings.lifetimeSeconds))
        }
        let validator = DPoPProofValidator(replayStore: store, nonces: nonces)
        return [BearerPresentation(), try DPoPPresentation(validator: validator, origin: origin)]
    }

    /// `GET /api/whoami`'s answer: the provider and subject (as before), the kind of token, and
    /// for access tokens the client and the scopes.
    static func whoami(_ caller: VerifiedToken?) -> JSONValue {
        var body: [String: JSONValue] = [
            "provider": .string(caller?.providerID ?? ""), "sub": .string(caller?.subject ?? ""),
            "kind": .string(caller?.kind.rawValue ?? ""),
        ]
        if let caller, caller.kind != .idToken {
            if let clientID = caller.clientID { body["client_id"] = .string(clientID) }
            body["scope"] = .string(caller.scopes.description)
        }
        if let proof = caller?.dpopProof { body["dpop_jkt"] = .string(proof.thumbprint) }
        return .object(body)
    }

    /// What the sign-in buttons call a dev provider of `flavor`: the provider it stands in for.
    static func devLabel(_ flavor: DevFlavor) -> String {
        switch flavor {
        case .generic: return "Dev provider"
        case .google: return "Google"
        case .apple: return "Apple"
        case .firebase: return "Firebase"
        case .microsoft: return "Microsoft"
        case .github: return "GitHub"
        }
    }

    /// A dev provider whose clients redirect to this server's callback for `name` (and, after
    /// RP-initiated logout, to its sign-out callback) on the loopback addresses (any port) and at
    /// `origin` (`http://localhost:PORT`, say), with the user picker (a person chooses who to be).
    /// With `servesMCPClients`, the public client `dev-public` keeps its loopback redirects (any
    /// port and path): an MCP client's own redirect listener (Docs/MCP.md).
    static func devConfiguration(
        _ flavor: DevFlavor, name: String, origin: String, servesMCPClients: Bool = false
    ) -> DevProviderConfiguration {
        var configuration = DevProviderConfiguration.standard(for: flavor)
        configuration.autoApproveSubject = nil
        for index in configuration.clients.indices where !configuration.clients[index].redirectURIs.isEmpty {
            if servesMCPClients, configuration.clients[index].id == "dev-public" { continue }
            configuration.clients[index].redirectURIs = [
                "http://127.0.0.1/auth/\(name)/callback", "http://[::1]/auth/\(name)/callback", "http://127.0.0.1/auth/signout/callback",
                "http://[::1]/auth/signout/callback", origin + "/auth/\(name)/callback", origin + "/auth/signout/callback",
            ]
        }
        return configuration
    }

    static func devSignIn(_ dev: DevProvider, flavor: DevFlavor, cache: ProviderCache) throws -> any SignInProvider {
        let client = dev.configuration.clients[0]
        switch flavor {
        case .google:
            return GoogleProvider(clientID: client.id, clientSecret: client.secret, endpoints: .at(dev.baseURL), cache: cache)
        case .apple:
            guard let key = dev.configuration.appleClientKey else {
                throw FederateError(.invalidConfiguration, "the Apple flavour has no key")
            }
            return try AppleProvider(
                servicesID: client.id, teamID: key.teamID, keyID: key.keyID, privateKeyPEM: key.privateKeyPEM, endpoints: .at(dev.baseURL),
                cache: cache)
        case .microsoft:
            // The dev provider's tenants only: any tenant it serves, at its /common authority.
            return try MicrosoftProvider(
                clientID: client.id, clientSecret: client.secret, audience: .common(.anyTenant), endpoints: .at(dev.baseURL), cache: cache)
        case .github:
            return try GitHubProvider(
                clientID: client.id, clientSecret: client.secret ?? "", endpoints: .enterprise(dev.baseURL), cache: cache)
        case .generic, .firebase:
            return try OIDCProvider(id: "oidc.dev", issuer: dev.issuer, clientID: client.id, clientSecret: client.secret, cache: cache)
        }
    }

    /// `postgres://user[:password]@host[:port]/database`, without TLS on loopback hosts only.
    static func postgresConfiguration(_ url: String) throws(FederateError) -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else {
            throw FederateError(.invalidConfiguration, "the database URL is postgres://user:password@host:port/database")
        }
        let database = String(components.path.dropFirst())
        let loopback = host == "127.0.0.1" || host == "::1" || host == "localhost"
        return PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: loopback ? .disable : .require(.makeClientConfiguration()))
    }
}

/// Runs `prepare`, then `service`: the app listens only once the store is migrated.
struct AfterPreparing: Service {
    let prepare: @Sendable () async throws -> Void
    let service: any Service

    func run() async throws {
        try await prepare()
        try await service.run()
    }
}
