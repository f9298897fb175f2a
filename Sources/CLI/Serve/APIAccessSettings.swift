import Federate
import Foundation

/// The `"api_access_tokens"` object of `federate serve`'s configuration file: the access
/// tokens `GET /api/whoami` accepts besides `api_bearer_provider`'s ID tokens.
///
/// ```json
/// "api_access_tokens": {"provider": "corp", "resource": "https://api.example", "method": "jwt"}
/// "api_access_tokens": {"provider": "corp", "resource": "https://api.example", "method": "introspection",
///                       "client_id": "orders-api", "client_secret_env": "ORDERS_API_SECRET", "cache_seconds": 60}
/// ```
///
/// `provider` names an `oidc` or `dev` provider of the file (its issuer, keys and discovery);
/// `resource` is this API's resource identifier (`aud`); `method` is `jwt` (RFC 9068, verified
/// locally) or `introspection` (RFC 7662), which authenticates as `client_id` with the secret
/// `client_secret_env` names (default: the provider's own client) and caches active answers
/// up to `cache_seconds` (default 60). `"dpop": true` also takes DPoP-bound tokens
/// (`Authorization: DPoP` with a proof, RFC 9449), their proofs used once across every
/// instance on the account store; without it a DPoP-bound token is refused.
///
/// ```json
/// "required_scopes": {"/api/whoami": "orders:read"},          // per route: 403 insufficient_scope without them
/// "introspection_endpoint": "https://login.corp.example/o/introspect/",   // when discovery names none
/// "dpop_nonces": {"secret_env": "FEDERATE_DPOP_NONCE_SECRET", "lifetime_seconds": 300}   // with "dpop": true
/// ```
///
/// `required_scopes` maps a route of the API to the scopes (RFC 6749 §3.3, space-separated)
/// every token must have been granted there; an ID token grants none. `introspection_endpoint`
/// names the RFC 7662 endpoint of a provider whose discovery does not advertise one
/// (django-oauth-toolkit): discovery's wins when it has one; it must be HTTPS, or HTTP on a
/// loopback host, like every endpoint Federate calls. `dpop_nonces` makes every DPoP proof carry
/// a nonce this server issued (RFC 9449 §9): HMACs under a secret all instances share (base64 of
/// at least 32 bytes in `secret_env`; without it each process makes its own, fine for one instance).
struct APIAccessSettings: Equatable {
    enum Method: String { case jwt, introspection }

    /// The routes of `federate serve`'s API, which `required_scopes` may name.
    static let routes = ["/api/whoami"]

    /// Server-issued DPoP nonces: the shared secret (`nil`: one per process) and each nonce's lifetime.
    struct DPoPNonceSettings: Equatable {
        var secret: [UInt8]?
        var lifetimeSeconds: Int64 = 300
    }

    var provider: String
    /// The resource identifier; `nil` (the defaults only) is the server's `ORIGIN/api`.
    var resource: String?
    var method: Method
    var clientID: String?
    var clientSecret: String?
    var cacheSeconds: Double = 60
    /// Whether `Authorization: DPoP` is taken too.
    var dpop = false
    /// Whether DPoP proofs must carry a server nonce, and how nonces are made.
    var dpopNonces: DPoPNonceSettings?
    /// The scopes each route requires, by route (``routes``).
    var requiredScopes: [String: OAuthScopes] = [:]
    /// The introspection endpoint to use when discovery advertises none.
    var introspectionEndpoint: String?

    init(provider: String, resource: String?, method: Method) {
        self.provider = provider
        self.resource = resource
        self.method = method
    }

    /// Reads the object; `environment` supplies the secret it names.
    init(json value: JSONValue, environment: [String: String]) throws(FederateError) {
        let shape = "api_access_tokens is {\"provider\": NAME, \"resource\": URI, \"method\": \"jwt\" or \"introspection\"}"
        guard case .object(let object) = value, let provider = object["provider"]?.stringValue, !provider.isEmpty,
            let resource = object["resource"]?.stringValue, !resource.isEmpty,
            let method = object["method"]?.stringValue.flatMap({ Method(rawValue: $0) })
        else { throw FederateError(.invalidConfiguration, shape) }
        self.init(provider: provider, resource: resource, method: method)
        if let id = object["client_id"] {
            guard let text = id.stringValue, !text.isEmpty else {
                throw FederateError(.invalidConfiguration, "api_access_tokens.client_id is a string")
            }
            clientID = text
        }
        if let variable = object["client_secret_env"]?.stringValue {
            guard let secret = environment[variable], !secret.isEmpty else {
                throw FederateError(.invalidConfiguration, "the environment variable \(variable) is not set")
            }
            clientSecret = secret
        }
        if let flag = object["dpop"] {
            guard case .bool(let on) = flag else { throw FederateError(.invalidConfiguration, "api_access_tokens.dpop is true or false") }
            dpop = on
        }
        if let seconds = object["cache_seconds"] {
            guard let value = seconds.doubleValue, value.isFinite, value >= 0, value <= 3600 else {
                throw FederateError(.invalidConfiguration, "api_access_tokens.cache_seconds is a number from 0 to 3600")
            }
            cacheSeconds = value
        }
        if let value = object["required_scopes"] {
            requiredScopes = try Self.requiredScopes(value)
        }
        if let value = object["introspection_endpoint"] {
            guard method == .introspection else {
                throw FederateError(
                    .invalidConfiguration, "api_access_tokens.introspection_endpoint goes with \"method\": \"introspection\"")
            }
            guard let url = value.stringValue else {
                throw FederateError(.invalidConfiguration, "api_access_tokens.introspection_endpoint is a URL")
            }
            try EndpointSecurity.validate(url, field: "api_access_tokens.introspection_endpoint")
            introspectionEndpoint = url
        }
        if let value = object["dpop_nonces"] {
            guard dpop else { throw FederateError(.invalidConfiguration, "api_access_tokens.dpop_nonces goes with \"dpop\": true") }
            dpopNonces = try Self.dpopNonces(value, environment: environment)
        }
    }

    /// `{"/api/whoami": "scope1 scope2"}`: routes of ``routes``, each with RFC 6749 scopes.
    private static func requiredScopes(_ value: JSONValue) throws(FederateError) -> [String: OAuthScopes] {
        guard case .object(let members) = value else {
            throw FederateError(.invalidConfiguration, "api_access_tokens.required_scopes is {ROUTE: \"scope1 scope2\"}")
        }
        var scopes: [String: OAuthScopes] = [:]
        for (route, text) in members {
            guard routes.contains(route) else {
                throw FederateError(
                    .invalidConfiguration,
                    "api_access_tokens.required_scopes names no route of this API; the routes: \(routes.joined(separator: ", "))")
            }
            guard let text = text.stringValue, !text.isEmpty, let parsed = try? OAuthScopes(parsing: text) else {
                throw FederateError(
                    .invalidConfiguration,
                    "api_access_tokens.required_scopes[\"\(route)\"] is scopes separated by single spaces (RFC 6749 §3.3)")
            }
            scopes[route] = parsed
        }
        return scopes
    }

    /// `{"secret_env": VARIABLE, "lifetime_seconds": 300}`, both optional.
    private static func dpopNonces(_ value: JSONValue, environment: [String: String]) throws(FederateError) -> DPoPNonceSettings {
        guard case .object(let members) = value else {
            throw FederateError(
                .invalidConfiguration, "api_access_tokens.dpop_nonces is {\"secret_env\": VARIABLE, \"lifetime_seconds\": N}")
        }
        var settings = DPoPNonceSettings()
        if let variable = members["secret_env"] {
            guard let name = variable.stringValue, let text = environment[name], !text.isEmpty else {
                throw FederateError(
                    .invalidConfiguration, "api_access_tokens.dpop_nonces.secret_env names an environment variable that is set")
            }
            guard let secret = Data(base64Encoded: text), secret.count >= 32 else {
                throw FederateError(.invalidConfiguration, "the DPoP nonce secret is base64 of at least 32 bytes")
            }
            settings.secret = Array(secret)
        }
        if let lifetime = members["lifetime_seconds"] {
            guard let seconds = lifetime.int64Value, (1...86_400).contains(seconds) else {
                throw FederateError(
                    .invalidConfiguration, "api_access_tokens.dpop_nonces.lifetime_seconds is a whole number from 1 to 86400")
            }
            settings.lifetimeSeconds = seconds
        }
        return settings
    }
}

extension APIAccessSettings {
    /// The resource identifier for a server at `origin`.
    func resolvedResource(origin: String) -> String { resource ?? origin + "/api" }
}
