import Federate

/// The `"metrics"` object of `federate serve`'s configuration file: whether `GET /metrics`
/// answers, and the bearer token it demands.
///
/// ```json
/// "metrics": {"enabled": true, "bearer_token_env": "FEDERATE_METRICS_TOKEN"}
/// ```
///
/// Off when absent. Enabled, it needs a bearer token (from the environment variable the file
/// names, as every secret) unless `"unprotected": true` says, by name, that anyone who can
/// reach the port may read the metrics.
struct MetricsSettings {
    /// Whether `/metrics` is served.
    var enabled = false
    /// The token `Authorization: Bearer` must carry; `nil` only when ``unprotected``.
    var bearerToken: String?
    /// Served without a token, on purpose.
    var unprotected = false

    /// Off.
    init() {}

    /// Reads the `"metrics"` object; `environment` supplies the token it names.
    init(json value: JSONValue, environment: [String: String]) throws(FederateError) {
        guard case .object(let object) = value else {
            throw FederateError(.invalidConfiguration, "metrics is an object: {\"enabled\": true, \"bearer_token_env\": VARIABLE}")
        }
        enabled = object["enabled"]?.boolValue ?? false
        unprotected = object["unprotected"]?.boolValue ?? false
        if let variable = object["bearer_token_env"]?.stringValue {
            guard let token = environment[variable], !token.isEmpty else {
                throw FederateError(.invalidConfiguration, "the environment variable \(variable) is not set")
            }
            bearerToken = token
        }
        if enabled, bearerToken == nil, !unprotected {
            throw FederateError(
                .invalidConfiguration, "metrics needs bearer_token_env (the variable holding its token), or \"unprotected\": true")
        }
    }
}
