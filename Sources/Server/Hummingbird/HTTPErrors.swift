public import Federate
public import Hummingbird

/// Any `FederateError` a route or middleware throws answers for itself: JSON
/// `{"error": CODE, "message": TEXT}` with the status ``ErrorResponse/status(for:)`` gives.
/// No handler catches an error to render it by hand.
extension FederateError: HTTPResponseError {
    /// The HTTP status for this error's code.
    public var status: HTTPResponse.Status { ErrorResponse.status(for: code) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        ErrorResponse.json(status, self)
    }
}

/// A `FederateError` answered with a status or headers of the route's choosing (a 502 when
/// the provider cannot be reached, a 401 with `WWW-Authenticate`).
public struct FederateHTTPError: HTTPResponseError {
    /// The error.
    public let error: FederateError
    /// The status answered.
    public let status: HTTPResponse.Status
    /// Extra headers.
    public let headers: HTTPFields

    /// Wraps `error` with `status` and extra `headers`.
    public init(_ status: HTTPResponse.Status, _ error: FederateError, headers: HTTPFields = [:]) {
        self.error = error
        self.status = status
        self.headers = headers
    }

    /// An error with a code and message of the server layer's own.
    public init(_ status: HTTPResponse.Status, code: FederateError.Code, message: String, headers: HTTPFields = [:]) {
        self.init(status, FederateError(code, message), headers: headers)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        ErrorResponse.json(status, error, headers: headers)
    }
}

/// A failed sign-in callback: the browser goes back to the app's page with the error's code,
/// `returnTo?error=CODE` (for an error the provider answered,
/// `error=provider_error&provider_error=ITS_CODE`), and the flow's cookie is cleared. No
/// message goes along: the provider's free text never reaches the browser. When the account
/// store could not answer, 503 with `Retry-After` and the JSON error instead (``StoreOutage``):
/// the sign-in did not fail, the server could not finish it; start it again later.
struct CallbackFailure: HTTPResponseError {
    let error: FederateError
    let returnTo: String
    let clearing: Cookie?
    /// A cookie the failure sets (a merge ticket), if any.
    var setting: Cookie? = nil

    var status: HTTPResponse.Status { StoreOutage.status(for: error, otherwise: .seeOther) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if status == .serviceUnavailable {
            var response = ErrorResponse.json(status, error)
            if let clearing { response.setCookie(clearing) }
            return response
        }
        let parameters: [(String, String)]
        if let providerError = error.providerError {
            parameters = [("error", FederateError.Code.providerError.rawValue), ("provider_error", providerError.code)]
        } else {
            parameters = [("error", error.code.rawValue)]
        }
        let separator = returnTo.contains("?") ? "&" : "?"
        var response = Response(
            status: status, headers: [.location: returnTo + separator + FormURLEncoding.encode(parameters), .cacheControl: "no-store"])
        if let clearing { response.setCookie(clearing) }
        if let setting { response.setCookie(setting) }
        return response
    }
}

/// A refused provider delivery (back-channel logout, notifications, RISC): 400 with
/// `{"error": CODE, "error_description": TEXT}`, as Back-Channel Logout 1.0 §2.8 answers; 503
/// with `Retry-After` when the account store failed (``StoreOutage``), so the provider
/// delivers it again.
struct ProviderEventRefusal: HTTPResponseError {
    let error: FederateError

    var status: HTTPResponse.Status { StoreOutage.status(for: error, otherwise: .badRequest) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = JSONSerializer.bytes(["error": .string(error.code.rawValue), "error_description": .string(error.message)])
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .serviceUnavailable { headers.append(contentsOf: StoreOutage.fields) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
