import Federate
import FederateGitHub
import FederateMicrosoft
import FederateOAuth2
import Foundation

/// `federate serve`'s configuration file (documented in `Docs/Server.md`):
///
/// ```json
/// {"port": 8080, "origin": "https://app.example",
///  "store": {"sqlite": "federate.sqlite"},            // or {"postgres_url_env": "DATABASE_URL", "schema": "public"}
///  "sealing_key_env": "FEDERATE_SEALING_KEY",         // base64 of 32 bytes; shared by all instances
///  "recent_login_seconds": 300,
///  "api_bearer_provider": "corp",                     // GET /api/whoami takes this provider's ID tokens
///  "api_access_tokens": {"provider": "corp", "resource": "https://api.example", "method": "jwt"},   // and its access tokens
///  "verified_token_cache": {"entries": 10000},         // tokens the API remembers verified (on by default; false: off)
///  "metrics": {"enabled": true, "bearer_token_env": "FEDERATE_METRICS_TOKEN"},   // GET /metrics; off when absent
///  "guests": true,                                    // POST /auth/guest (off unless set; on without a file)
///  "guest_limits": {"burst": 5, "interval_seconds": 60, "max_live": 100000, "lifetime_days": 7},   // GuestSettings
///  "passkeys": {"rp_id": "app.example", "rp_name": "Example"},   // PasskeySettings: on for a host-name origin, false turns off
///  "trusted_proxies": ["10.0.0.2"],                   // whose X-Forwarded-For names the client (none by default)
///  "provider_token_keys_env": "FEDERATE_TOKEN_KEYS",  // "id:base64,...": keys for the tokens of providers with "keep_tokens"
///  "provider_token_route": true,                      // GET /me/provider-tokens/{name} (off unless set)
///  "providers": [
///    {"name": "google", "type": "google", "client_id": "…", "client_secret_env": "GOOGLE_CLIENT_SECRET"},
///    {"name": "apple", "type": "apple", "services_id": "…", "team_id": "…", "key_id": "…", "private_key_env": "APPLE_P8"},
///    {"name": "corp", "type": "oidc", "label": "Corp SSO", "issuer": "https://login.corp.example", "client_id": "…", "client_secret_env": "CORP_SECRET",
///     "allow_private_endpoints": ["10.0.0.0/8"],       // only if the provider is on your own network
///     "keep_tokens": true},                           // kept, sealed, refreshed (AccountService.accessToken)
///    {"name": "microsoft", "type": "microsoft", "client_id": "…", "client_secret_env": "MS_SECRET",
///     "account_types": "organizations", "allowed_tenants": ["72f988bf-…"]},   // or "tenant", or "any_tenant": true (MicrosoftAudienceChoice)
///    {"name": "github", "type": "github", "client_id": "…", "client_secret_env": "GITHUB_SECRET"},   // "enterprise_url" for GHES
///    {"name": "corp-oauth", "type": "oauth2", "issuer": "https://auth.corp.example", "user_endpoint": "https://api.corp.example/me",
///     "client_id": "…", "client_secret_env": "CORP_OAUTH_SECRET", "scopes": ["profile"], "fields": {"id": "id", "email_verified": "verified"}},
///    {"name": "dev", "type": "dev", "flavor": "generic"}]}
/// ```
///
/// Secrets are never in the file: only the names of the environment variables holding them.
struct ServeConfiguration {
    enum Store {
        case sqlite(path: String)
        case postgres(url: String, schema: String)
    }

    enum ProviderEntry {
        case dev(name: String, flavor: String)
        case google(name: String, clientID: String, clientSecret: String?)
        case apple(name: String, servicesID: String, teamID: String, keyID: String, privateKeyPEM: String)
        case oidc(name: String, issuer: String, clientID: String, clientSecret: String?, privateNetwork: PrivateNetworkAllowList)
        /// `authorityHost` is `nil` for Microsoft's global cloud.
        case microsoft(name: String, clientID: String, clientSecret: String?, audience: MicrosoftAudience, authorityHost: String?)
        /// `enterpriseURL` is `nil` for github.com.
        case github(name: String, clientID: String, clientSecret: String, enterpriseURL: String?)
        case oauth2(OAuth2Entry)

        var name: String {
            switch self {
            case .dev(let name, _), .google(let name, _, _), .apple(let name, _, _, _, _), .oidc(let name, _, _, _, _),
                .microsoft(let name, _, _, _, _),
                .github(let name, _, _, _):
                return name
            case .oauth2(let entry):
                return entry.name
            }
        }
    }

    /// A `"type": "oauth2"` entry: an OAuth 2.0 provider without ID tokens, configured from data.
    struct OAuth2Entry {
        let name: String
        let server: OAuth2Provider.Server
        let userEndpoint: String
        let clientID: String
        let clientSecret: String?
        let scopes: [String]
        let fields: OAuth2UserFields
    }

    var port: Int = 8080
    var origin: String?
    var store: Store = .sqlite(path: "federate-demo.sqlite")
    var sealingKey: [UInt8]?
    var recentLoginSeconds: Double = 300
    /// The provider whose ID tokens `GET /api/whoami` accepts as bearer tokens (any provider
    /// of the file, through its `BearerTokenSource`); `nil` serves no API route.
    var apiProvider: String? = "dev"
    /// The access tokens `GET /api/whoami` also takes (``APIAccessSettings``); `nil` takes none.
    /// The defaults take the generic dev provider's JWT access tokens for `ORIGIN/api`.
    var apiAccessTokens: APIAccessSettings? = APIAccessSettings(provider: "dev", resource: nil, method: .jwt)
    /// How many verified tokens the API's verifiers remember (``VerifiedTokenCacheSettings``): on by default.
    var verifiedTokenCache = VerifiedTokenCacheConfiguration.default
    var providers: [ProviderEntry] = [
        .dev(name: "dev", flavor: "generic"), .dev(name: "google", flavor: "google"), .dev(name: "apple", flavor: "apple"),
        .dev(name: "github", flavor: "github"),
    ]
    /// What the demo page's buttons call each provider, by name (a provider's `"label"`);
    /// unnamed ones are called after their type ("Google", "Apple", "Dev provider").
    var labels: [String: String] = [:]
    /// Whether `GET /metrics` answers, and with which token (off by default).
    var metrics = MetricsSettings()
    /// Whether `POST /auth/guest` creates guest accounts: on without a file (the demo), off
    /// unless a file says `"guests": true`.
    var guests = true
    /// How guests are bounded, and the trusted proxies (``GuestSettings``).
    var guestSettings = GuestSettings()
    /// The passkey routes' relying party (``PasskeySettings``): on by default when the origin's
    /// host is a name.
    var passkeys = PasskeySettings()
    /// The providers (by name) whose tokens the account layer keeps (`"keep_tokens": true`).
    var keptTokenProviders: [String] = []
    /// The provider-token key ring, `id:base64,...`, from `provider_token_keys_env`.
    var providerTokenKeys: String?
    /// Whether `GET /me/provider-tokens/{name}` answers (off by default).
    var providerTokenRoute = false
    /// The demo MCP server (Docs/MCP.md): on without a file, with the generic dev provider.
    var mcp: MCPSettings? = MCPSettings(provider: "dev")

    /// The button label configured for provider `name`, if any.
    func label(of name: String) -> String? { labels[name] }

    /// Throws unless `seconds` is a usable recent-login window: 0 to a year.
    static func checkRecentLoginSeconds(_ seconds: Double) throws(FederateError) {
        guard seconds.isFinite, seconds >= 0, seconds <= 31_536_000 else {
            throw FederateError(.invalidConfiguration, "recent_login_seconds is a number of seconds from 0 to 31536000 (a year)")
        }
    }

    /// A provider entry's `allow_private_endpoints`: host names, addresses or CIDR networks it
    /// may use although its issuer is not on loopback (`PrivateNetworkAllowList`); none when absent.
    static func privateNetwork(_ entry: JSONValue, provider name: String) throws(FederateError) -> PrivateNetworkAllowList {
        guard let value = entry["allow_private_endpoints"] else { return .none }
        let items: [JSONValue]? = value.arrayValue
        let strings: [String] = (items ?? []).compactMap { $0.stringValue }
        guard let items, strings.count == items.count else {
            throw FederateError(
                .invalidConfiguration, "provider '\(name)': allow_private_endpoints is an array of host names, addresses or CIDR networks")
        }
        do throws(FederateError) {
            return try PrivateNetworkAllowList(strings)
        } catch {
            throw FederateError(.invalidConfiguration, "provider '\(name)': \(error.message)")
        }
    }

    /// The defaults: three dev-provider flavours in process, SQLite in a local file.
    init() {}

    /// Reads a configuration file; `environment` supplies the secrets it names.
    init(json bytes: [UInt8], environment: [String: String]) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser().parseObject(bytes)
        } catch {
            throw FederateError(.invalidConfiguration, "the configuration file is not a JSON object")
        }
        func secret(_ entry: JSONValue, _ key: String) throws(FederateError) -> String? {
            guard let variable = entry[key]?.stringValue else { return nil }
            guard let value = environment[variable], !value.isEmpty else {
                throw FederateError(.invalidConfiguration, "the environment variable \(variable) is not set")
            }
            return value
        }
        func string(_ entry: JSONValue, _ key: String) throws(FederateError) -> String {
            guard let value = entry[key]?.stringValue, !value.isEmpty else {
                throw FederateError(.invalidConfiguration, "a provider needs '\(key)'")
            }
            return value
        }
        if let value = object["port"] {
            guard let port = value.int64Value, (0...65_535).contains(port) else {
                throw FederateError(.invalidConfiguration, "port is a whole number from 0 to 65535")
            }
            self.port = Int(port)
        }
        origin = object["origin"]?.stringValue
        if let store = object["store"] {
            if let path = store["sqlite"]?.stringValue {
                self.store = .sqlite(path: path)
            } else if let url = try secret(store, "postgres_url_env") {
                self.store = .postgres(url: url, schema: store["schema"]?.stringValue ?? "public")
            } else {
                throw FederateError(.invalidConfiguration, "store is {\"sqlite\": PATH} or {\"postgres_url_env\": VARIABLE}")
            }
        }
        if let key = try secret(.object(object), "sealing_key_env") {
            guard let bytes = Data(base64Encoded: key), bytes.count == 32 else {
                throw FederateError(.invalidConfiguration, "the sealing key is base64 of 32 bytes")
            }
            sealingKey = Array(bytes)
        }
        if let value = object["recent_login_seconds"] {
            guard let seconds = value.doubleValue else {
                throw FederateError(.invalidConfiguration, "recent_login_seconds is a number of seconds from 0 to 31536000 (a year)")
            }
            try Self.checkRecentLoginSeconds(seconds)
            recentLoginSeconds = seconds
        }
        if let value = object["metrics"] {
            metrics = try MetricsSettings(json: value, environment: environment)
        }
        if let value = object["verified_token_cache"] {
            verifiedTokenCache = try VerifiedTokenCacheSettings.configuration(json: value)
        }
        func flag(_ key: String) throws(FederateError) -> Bool {
            guard let value = object[key] else { return false }
            guard case .bool(let on) = value else { throw FederateError(.invalidConfiguration, "\(key) is true or false") }
            return on
        }
        guests = try flag("guests")
        guestSettings = try GuestSettings(limits: object["guest_limits"], trustedProxies: object["trusted_proxies"])
        providerTokenRoute = try flag("provider_token_route")
        providerTokenKeys = try secret(.object(object), "provider_token_keys_env")
        if let value = object["api_bearer_provider"] {
            guard let name = value.stringValue else {
                throw FederateError(.invalidConfiguration, "api_bearer_provider is the name of a provider")
            }
            apiProvider = name
        } else {
            apiProvider = nil
        }
        if let value = object["api_access_tokens"] {
            apiAccessTokens = try APIAccessSettings(json: value, environment: environment)
        } else {
            apiAccessTokens = nil
        }
        mcp = try object["mcp"].map { (value) throws(FederateError) in try MCPSettings(json: value) }
        if let value = object["passkeys"] { passkeys = try PasskeySettings(json: value) }
        if let entries = object["providers"]?.arrayValue {
            providers = []
            for entry in entries {
                let name = try string(entry, "name")
                if let keep = entry["keep_tokens"] {
                    guard case .bool(let on) = keep else {
                        throw FederateError(.invalidConfiguration, "provider '\(name)': keep_tokens is true or false")
                    }
                    if on { keptTokenProviders.append(name) }
                }
                if let label = entry["label"] {
                    guard let text = label.stringValue, !text.isEmpty, text.count <= 64 else {
                        throw FederateError(.invalidConfiguration, "provider '\(name)': label is a short text (1-64 characters)")
                    }
                    labels[name] = text
                }
                switch entry["type"]?.stringValue {
                case "dev": providers.append(.dev(name: name, flavor: entry["flavor"]?.stringValue ?? "generic"))
                case "google":
                    providers.append(
                        .google(name: name, clientID: try string(entry, "client_id"), clientSecret: try secret(entry, "client_secret_env")))
                case "apple":
                    guard let key = try secret(entry, "private_key_env") else {
                        throw FederateError(.invalidConfiguration, "apple needs private_key_env")
                    }
                    providers.append(
                        .apple(
                            name: name, servicesID: try string(entry, "services_id"), teamID: try string(entry, "team_id"),
                            keyID: try string(entry, "key_id"),
                            privateKeyPEM: key))
                case "oidc":
                    providers.append(
                        .oidc(
                            name: name, issuer: try string(entry, "issuer"), clientID: try string(entry, "client_id"),
                            clientSecret: try secret(entry, "client_secret_env"),
                            privateNetwork: try Self.privateNetwork(entry, provider: name)))
                case "microsoft":
                    providers.append(
                        try Self.microsoft(
                            entry, name: name, clientID: try string(entry, "client_id"), secret: try secret(entry, "client_secret_env")))
                case "github":
                    guard let secret = try secret(entry, "client_secret_env") else {
                        throw FederateError(.invalidConfiguration, "provider '\(name)': github needs client_secret_env")
                    }
                    let enterprise = entry["enterprise_url"]?.stringValue
                    if let enterprise { _ = try GitHubEndpoints.enterprise(enterprise) }
                    providers.append(
                        .github(name: name, clientID: try string(entry, "client_id"), clientSecret: secret, enterpriseURL: enterprise))
                case "oauth2":
                    providers.append(
                        .oauth2(
                            try Self.oauth2(
                                entry, name: name, clientID: try string(entry, "client_id"), secret: try secret(entry, "client_secret_env"))
                        ))
                default:
                    throw FederateError(
                        .invalidConfiguration, "provider '\(name)': type is dev, google, apple, microsoft, oidc, github or oauth2")
                }
            }
        }
        let entries: [JSONValue] = object["providers"]?.arrayValue ?? []
        for entry in entries {
            let type: String? = entry["type"]?.stringValue
            guard type != "oidc", let _: JSONValue = entry["allow_private_endpoints"] else { continue }
            let name: String = entry["name"]?.stringValue ?? ""
            throw FederateError(.invalidConfiguration, "provider '\(name)': allow_private_endpoints is for oidc providers")
        }
        let names = providers.map(\.name)
        guard !names.isEmpty, Set(names).count == names.count,
            names.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } })
        else {
            throw FederateError(.invalidConfiguration, "provider names are unique, non-empty, letters, digits and '-'")
        }
        if !keptTokenProviders.isEmpty, providerTokenKeys == nil {
            throw FederateError(.invalidConfiguration, "keep_tokens needs provider_token_keys_env: the keys the tokens are sealed with")
        }
        if let keys = providerTokenKeys { _ = try SealingKeyRing(parsing: keys) }
        if let apiProvider, !names.contains(apiProvider) {
            throw FederateError(.invalidConfiguration, "api_bearer_provider '\(apiProvider)' is not a provider of this file")
        }
        if let access = apiAccessTokens {
            guard let entry = providers.first(where: { $0.name == access.provider }) else {
                throw FederateError(.invalidConfiguration, "api_access_tokens.provider '\(access.provider)' is not a provider of this file")
            }
            switch entry {
            case .oidc: break
            case .dev(_, let flavor) where flavor == "generic": break
            default:
                throw FederateError(.invalidConfiguration, "api_access_tokens.provider must be an oidc provider or a generic dev provider")
            }
        }
        if let mcp {
            switch providers.first(where: { $0.name == mcp.provider }) {
            case .oidc?: break
            case .dev(_, let flavor)? where flavor == "generic": break
            default:
                throw FederateError(.invalidConfiguration, "mcp.provider must be an oidc provider or a generic dev provider of this file")
            }
        }
    }

    /// A `"type": "oauth2"` entry: `issuer` (RFC 8414 metadata) or `authorization_endpoint` and
    /// `token_endpoint` (and `revocation_endpoint`), `user_endpoint`, `scopes`, and `fields` naming
    /// the user endpoint's members (`id` required; `email`, `email_verified`, `name`, `picture`,
    /// `username`, `auth_time`). Every URL passes `EndpointSecurity`.
    static func oauth2(_ entry: JSONValue, name: String, clientID: String, secret: String?) throws(FederateError) -> OAuth2Entry {
        func text(_ value: JSONValue?, _ key: String) throws(FederateError) -> String? {
            guard let value else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': \(key) is a string")
            }
            return text
        }
        let server: OAuth2Provider.Server
        if let issuer = try text(entry["issuer"], "issuer") {
            guard entry["authorization_endpoint"] == nil, entry["token_endpoint"] == nil else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': issuer or the endpoints, not both")
            }
            try EndpointSecurity.validate(issuer, field: "provider '\(name)': issuer")
            server = .issuer(issuer)
        } else {
            guard let authorization = try text(entry["authorization_endpoint"], "authorization_endpoint"),
                let token = try text(entry["token_endpoint"], "token_endpoint")
            else {
                throw FederateError(
                    .invalidConfiguration, "provider '\(name)': oauth2 needs issuer, or authorization_endpoint and token_endpoint")
            }
            var origin = authorization
            if let scheme = origin.range(of: "://"), let slash = origin[scheme.upperBound...].firstIndex(of: "/") {
                origin = String(origin[..<slash])
            }
            server = .endpoints(
                try AuthorizationServerMetadata(
                    issuer: origin, authorizationEndpoint: authorization, tokenEndpoint: token,
                    revocationEndpoint: try text(entry["revocation_endpoint"], "revocation_endpoint")))
        }
        guard let userEndpoint = try text(entry["user_endpoint"], "user_endpoint") else {
            throw FederateError(.invalidConfiguration, "provider '\(name)': oauth2 needs user_endpoint")
        }
        try EndpointSecurity.validate(userEndpoint, field: "provider '\(name)': user_endpoint")
        var scopes: [String] = []
        if let list = entry["scopes"] {
            guard let items = list.arrayValue, items.count <= 64 else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': scopes is a list of strings")
            }
            for item in items {
                guard let scope = item.stringValue, !scope.isEmpty else {
                    throw FederateError(.invalidConfiguration, "provider '\(name)': scopes is a list of strings")
                }
                scopes.append(scope)
            }
        }
        var fields = OAuth2UserFields()
        if let object = entry["fields"] {
            guard case .object(let members) = object else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': fields is an object")
            }
            let known: Set<String> = ["id", "email", "email_verified", "name", "picture", "username", "auth_time"]
            if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
                throw FederateError(
                    .invalidConfiguration,
                    "provider '\(name)': unknown field '\(unknown)' (id, email, email_verified, name, picture, username, auth_time)")
            }
            func field(_ key: String, default value: String?) throws(FederateError) -> String? {
                guard let member = members[key] else { return value }
                if member == .null { return nil }
                return try text(member, "fields." + key)
            }
            fields = OAuth2UserFields(
                id: try field("id", default: "id") ?? "id", email: try field("email", default: fields.email),
                emailVerified: try field("email_verified", default: fields.emailVerified), name: try field("name", default: fields.name),
                picture: try field("picture", default: fields.picture), username: try field("username", default: nil),
                authTime: try field("auth_time", default: nil))
        }
        return OAuth2Entry(
            name: name, server: server, userEndpoint: userEndpoint, clientID: clientID, clientSecret: secret, scopes: scopes, fields: fields
        )
    }

    /// A `"type": "microsoft"` entry: who may sign in (``MicrosoftAudienceChoice``) and, for a
    /// national cloud or a stand-in, `authority_host`.
    static func microsoft(_ entry: JSONValue, name: String, clientID: String, secret: String?) throws(FederateError) -> ProviderEntry {
        func text(_ key: String) throws(FederateError) -> String? {
            guard let value = entry[key] else { return nil }
            guard let text = value.stringValue, !text.isEmpty else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': \(key) is a string")
            }
            return text
        }
        var allowed: [String] = []
        if let list = entry["allowed_tenants"] {
            guard let items = list.arrayValue, !items.isEmpty, items.count <= 1000 else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': allowed_tenants is a list of tenant IDs")
            }
            for item in items {
                guard let id = item.stringValue else {
                    throw FederateError(.invalidConfiguration, "provider '\(name)': allowed_tenants is a list of tenant IDs")
                }
                allowed.append(id)
            }
        }
        var anyTenant = false
        if let flag = entry["any_tenant"] {
            guard case .bool(let on) = flag else {
                throw FederateError(.invalidConfiguration, "provider '\(name)': any_tenant is true or false")
            }
            anyTenant = on
        }
        let tenant = try text("tenant"), accountTypes = try text("account_types")
        let audience: MicrosoftAudience
        do throws(FederateError) {
            audience = try MicrosoftAudienceChoice.audience(
                tenant: tenant, accountTypes: accountTypes, allowedTenants: allowed, anyTenant: anyTenant)
        } catch {
            throw FederateError(.invalidConfiguration, "provider '\(name)': \(error.message)")
        }
        let host = try text("authority_host")
        if let host { try EndpointSecurity.validate(host, field: "provider '\(name)': authority_host") }
        return .microsoft(name: name, clientID: clientID, clientSecret: secret, audience: audience, authorityHost: host)
    }
}
