import Federate
import HTTPTypes

/// The one answer to a request the account store could not serve: 503 with `Retry-After`,
/// whatever the route (sessions, DPoP replay checks, provider events, sign-in), never a 401
/// that would tell a client its token is bad when the store was only locked or unreachable.
///
/// The JSON body's `error` is the store's code: `store_unavailable` (locked past the busy
/// timeout, unreachable, out of connections), `store_schema_mismatch`, or
/// `account_store_failed`.
enum StoreOutage {
    /// The `Retry-After` sent with every store failure, in seconds.
    static let retryAfterSeconds = 2

    /// Whether `error` says the account store failed, not the request.
    static func isStoreFailure(_ error: FederateError) -> Bool {
        error.code == .storeUnavailable || error.code == .accountStoreFailed || error.code == .storeSchemaMismatch
    }

    /// `Retry-After`.
    static var fields: HTTPFields { [.retryAfter: String(retryAfterSeconds)] }

    /// `status` for a refusal of the request, or 503 when `error` is a store failure.
    static func status(for error: FederateError, otherwise status: HTTPTypes.HTTPResponse.Status) -> HTTPTypes.HTTPResponse.Status {
        isStoreFailure(error) ? .serviceUnavailable : status
    }
}
