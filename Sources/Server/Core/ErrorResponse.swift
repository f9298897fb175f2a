public import Federate
import HTTPTypes

/// Machine-readable error answers: `{"error": CODE, "message": TEXT}`, never a secret.
enum ErrorResponse {
    /// A JSON error response with `status`, and any extra headers.
    static func json(
        _ status: HTTPTypes.HTTPResponse.Status, code: FederateError.Code, message: String, headers: HTTPFields = [:]
    ) -> ServerResponse {
        .json(["error": .string(code.rawValue), "message": .string(message)], status: status, headers: headers)
    }

    /// The answer for `error` with `status`; a 503 for a store failure carries `Retry-After`
    /// (``StoreOutage``).
    static func json(_ status: HTTPTypes.HTTPResponse.Status, _ error: FederateError, headers: HTTPFields = [:]) -> ServerResponse {
        var headers = headers
        if status == .serviceUnavailable, StoreOutage.isStoreFailure(error), headers[.retryAfter] == nil {
            headers.append(contentsOf: StoreOutage.fields)
        }
        return json(status, code: error.code, message: error.message, headers: headers)
    }
}

extension FederateError.Code {
    /// The route needs a signed-in user and the request carries no valid session (answered 401).
    public static let sessionRequired: Self = "session_required"
    /// No provider is configured under the route's name (answered 404).
    public static let unknownProvider: Self = "unknown_provider"
    /// A bearer-guarded route was called without `Authorization: Bearer` (answered 401).
    public static let missingBearerToken: Self = "missing_bearer_token"
}
