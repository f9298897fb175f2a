import FederateOIDC
import FederateSQLite
import FederateVapor
import Vapor

/// Where the app listens and which providers it signs in with.
public struct ExampleSettings: Sendable {
    public var origin = "http://127.0.0.1:8080"
    public var devIssuer = "http://127.0.0.1:9000"
    public var corpIssuer = "http://127.0.0.1:9001"
    public var databasePath = "accounts.sqlite"
    /// The passkeys' relying party; `nil` (the default) turns passkeys off. Browsers refuse an
    /// IP address as RP ID: serve at `http://localhost:PORT` for passkeys.
    public var passkeys: WebAuthnConfiguration?

    public init() {}

    /// The defaults, overridden by APP_ORIGIN, DEV_ISSUER, CORP_ISSUER and DATABASE_PATH.
    public static func fromEnvironment() -> ExampleSettings {
        var settings = ExampleSettings()
        settings.origin = Environment.get("APP_ORIGIN") ?? settings.origin
        settings.devIssuer = Environment.get("DEV_ISSUER") ?? settings.devIssuer
        settings.corpIssuer = Environment.get("CORP_ISSUER") ?? settings.corpIssuer
        settings.databasePath = Environment.get("DATABASE_PATH") ?? settings.databasePath
        return settings
    }
}

/// Federated login with two OpenID providers, accounts in SQLite, and a page that shows who
/// is signed in and which providers are linked.
public func configure(_ app: Application, settings: ExampleSettings) async throws {
    // One cache per server: every provider keeps its discovery document and keys there.
    let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)
    let dev = try OIDCProvider(
        id: "oidc.dev", issuer: settings.devIssuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)
    let corp = try OIDCProvider(
        id: "oidc.corp", issuer: settings.corpIssuer, clientID: "dev-client", clientSecret: "dev-secret", cache: cache)

    let store = try await SQLiteAccountStore.open(path: settings.databasePath)
    // Seal each sign-in's state, nonce and PKCE verifier into a cookie, and the provider tokens
    // kept (to revoke them when an account is deleted) at rest. A fresh key per start is fine for
    // one instance in development; in production load the same keys on every instance
    // (`SealingKeyRing(parsing:)`, Docs/Server.md).
    let keys = try SealingKeyRing([.generate(id: "dev")])
    let accounts = AccountService(
        store: store, configuration: AccountServiceConfiguration(passkeys: settings.passkeys),
        providerTokens: try ProviderTokenVault(keys: keys))
    let configuration = try FederateServerConfiguration(
        origin: settings.origin,                     // plain HTTP is allowed on loopback only
        providers: ["dev": dev, "corp": corp],       // routes under /auth/dev/… and /auth/corp/…
        accounts: accounts,
        sealer: PendingAuthorizationSealer(keys: keys))

    // The store closes, and the warmer stops, after the server has stopped taking requests.
    app.lifecycle.use(LifecycleServices([store, ProviderWarmer(providers: configuration.providers)]))
    app.middleware.use(FederateErrorMiddleware())
    try app.register(collection: FederateRoutes(configuration: configuration))
    try app.register(collection: HealthRoutes(readiness: Readiness(configuration: configuration)))

    // The page: signed out, a sign-in link; signed in, the account and its providers.
    let page = app.grouped(SessionAuthenticationMiddleware(accounts: accounts, origin: settings.origin, required: false))
    page.get { request async throws -> Response in
        guard let session = request.federate.session else {
            return html("""
                <p id="signed-out">Signed out.</p>
                <a id="sign-in" href="/auth/dev/start">Sign in with the dev provider</a>
                """)
        }
        let user = try await accounts.user(uid: session.uid)
        let providers = user.providerIDs.map { "<li>\(escaped($0))</li>" }.joined()
        return html("""
            <p id="signed-in">Signed in as <span id="email">\(escaped(user.email ?? user.uid))</span>.</p>
            <ul id="providers">\(providers)</ul>
            <a id="link-corp" href="/auth/corp/start?intent=link">Link the corp provider</a>
            """)
    }
}

private func html(_ body: String) -> Response {
    Response(
        status: .ok, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
        body: .init(string: "<!doctype html><title>Federate on Vapor</title>" + body))
}

/// Text for HTML: what a provider asserted (an email) is never markup.
private func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
