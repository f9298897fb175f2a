import Federate
import HTTPTypes

/// The one answer to an API request whose token could not be judged because its provider could
/// not be reached (its discovery document or key set cannot be fetched, times out, or comes
/// back unusable): 503 with `Retry-After`, never a 401 `invalid_token` that would tell a client
/// its token is bad during the provider's outage.
enum ProviderOutage {
    /// The `Retry-After` sent with a provider outage, in seconds.
    static let retryAfterSeconds = 5

    /// Whether `error` says the provider could not be reached, not that the token is bad.
    static func isProviderFailure(_ error: FederateError) -> Bool {
        switch error.code {
        case .discoveryFailed, .keyFetchFailed, .httpFailed, .httpTimeout, .invalidDiscoveryDocument, .discoveryIssuerMismatch:
            return true
        default:
            return false
        }
    }

    /// `Retry-After`.
    static var fields: HTTPFields { [.retryAfter: String(retryAfterSeconds)] }
}
