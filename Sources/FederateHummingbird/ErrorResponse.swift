public import Federate
public import Hummingbird

/// Machine-readable error answers: `{"error": CODE, "message": TEXT}`, never a secret.
public enum ErrorResponse {
    /// A JSON error response with `status`, and any extra headers.
    public static func json(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        let body = JSONSerializer.bytes(["error": .string(code), "message": .string(message)])
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The answer for `error` with `status`.
    public static func json(_ status: HTTPResponse.Status, _ error: FederateError, headers: HTTPFields = [:]) -> Response {
        json(status, code: error.code.rawValue, message: error.message, headers: headers)
    }
}
