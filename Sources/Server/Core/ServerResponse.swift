package import Federate
public import HTTPTypes

/// A response as Federate's server logic writes it, whatever the framework: a status, header
/// fields (each `Set-Cookie` its own field) and a body. An integration turns it into its
/// framework's response.
public struct ServerResponse: Sendable {
    /// The status.
    public var status: HTTPTypes.HTTPResponse.Status
    /// The header fields.
    public var headers: HTTPFields
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    package init(status: HTTPTypes.HTTPResponse.Status, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with `Cache-Control: no-store`: what every Federate route answers.
    package static func json(_ body: JSONValue, status: HTTPTypes.HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> ServerResponse {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return ServerResponse(status: status, headers: fields, body: JSONSerializer.bytes(body))
    }

    /// A redirect to `location` (`302 Found` or `303 See Other`), never cached.
    static func redirect(_ status: HTTPTypes.HTTPResponse.Status, to location: String) -> ServerResponse {
        ServerResponse(status: status, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// Adds a `Set-Cookie` field.
    mutating func setCookie(_ cookie: SetCookie) {
        headers.append(HTTPField(name: .setCookie, value: cookie.headerValue))
    }
}
