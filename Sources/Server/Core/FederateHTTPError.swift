public import Federate
public import HTTPTypes

/// An error that is its own HTTP answer: every error Federate's server logic throws is one,
/// so an integration renders them all the same way (FederateHummingbird through
/// `HTTPResponseError`, FederateVapor through its error middleware). `FederateError` is one:
/// its JSON with the status its code maps to.
public protocol ServerResponseError: Error, Sendable {
    /// The whole answer.
    var serverResponse: ServerResponse { get }
}

extension FederateError: ServerResponseError {
    /// The HTTP status for this error's code.
    public var status: HTTPTypes.HTTPResponse.Status { ErrorResponse.status(for: code) }

    /// `{"error": CODE, "message": TEXT}` with ``status``.
    public var serverResponse: ServerResponse { ErrorResponse.json(status, self) }
}

/// A `FederateError` answered with a status or headers of the route's choosing (a 502 when
/// the provider cannot be reached, a 401 with `WWW-Authenticate`).
public struct FederateHTTPError: ServerResponseError {
    /// The error.
    public let error: FederateError
    /// The status answered.
    public let status: HTTPTypes.HTTPResponse.Status
    /// Extra headers.
    package let headers: HTTPFields

    /// Wraps `error` with `status` and extra `headers`.
    public init(_ status: HTTPTypes.HTTPResponse.Status, _ error: FederateError, headers: HTTPFields = [:]) {
        self.error = error
        self.status = status
        self.headers = headers
    }

    /// An error with a code and message of the server layer's own.
    package init(_ status: HTTPTypes.HTTPResponse.Status, code: FederateError.Code, message: String, headers: HTTPFields = [:]) {
        self.init(status, FederateError(code, message), headers: headers)
    }

    /// The JSON error with ``status`` and the extra headers.
    public var serverResponse: ServerResponse { ErrorResponse.json(status, error, headers: headers) }
}
