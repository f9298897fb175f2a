import Federate

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
struct APIAccessSettings: Equatable {
    enum Method: String { case jwt, introspection }

    var provider: String
    /// The resource identifier; `nil` (the defaults only) is the server's `ORIGIN/api`.
    var resource: String?
    var method: Method
    var clientID: String?
    var clientSecret: String?
    var cacheSeconds: Double = 60
    /// Whether `Authorization: DPoP` is taken too.
    var dpop = false

    init(provider: String, resource: String?, method: Method) {
        self.provider = provider
        self.resource = resource
        self.method = method
    }

    /// Reads the object; `environment` supplies the secret it names.
    init(json value: JSONValue, environment: [String: String]) throws(FederateError) {
        let shape = "api_access_tokens is {\"provider\": NAME, \"resource\": URI, \"method\": \"jwt\" or \"introspection\"}"
        guard case .object(let object) = value, let provider = object["provider"]?.stringValue, !provider.isEmpty,
            let resource = object["resource"]?.stringValue, !resource.isEmpty, let method = object["method"]?.stringValue.flatMap({ Method(rawValue: $0) })
        else { throw FederateError(.invalidConfiguration, shape) }
        self.init(provider: provider, resource: resource, method: method)
        if let id = object["client_id"] {
            guard let text = id.stringValue, !text.isEmpty else { throw FederateError(.invalidConfiguration, "api_access_tokens.client_id is a string") }
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
    }
}

extension APIAccessSettings {
    /// The resource identifier for a server at `origin`.
    func resolvedResource(origin: String) -> String { resource ?? origin + "/api" }
}
