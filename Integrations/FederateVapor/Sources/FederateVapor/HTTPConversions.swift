public import FederateServer
import HTTPTypes
public import Vapor

extension ServerRequest {
    /// `request` as Federate's server logic reads it: its method, path, query and header fields.
    public init(_ request: Request) {
        self.init(request, clientAddress: nil)
    }

    /// `request` with the connection's peer address, which the rate limits of Federate's
    /// anonymous routes count by (only its routes read it: a middleware's requests skip the work).
    init(routeRequest request: Request) {
        self.init(request, clientAddress: request.remoteAddress?.ipAddress)
    }

    private init(_ request: Request, clientAddress: String?) {
        var fields = HTTPFields()
        fields.reserveCapacity(request.headers.count)
        for (name, value) in request.headers {
            // NIO has parsed the fields already: a name that is not a token cannot arrive.
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        self.init(
            method: HTTPTypes.HTTPRequest.Method(request.method.rawValue) ?? .get, path: request.url.path, query: request.url.query,
            headers: fields, clientAddress: clientAddress)
    }
}

extension Response {
    /// Vapor's response for Federate's `response`.
    public convenience init(_ response: ServerResponse) {
        var headers = HTTPHeaders()
        for field in response.headers { headers.add(name: field.name.rawName, value: field.value) }
        self.init(
            status: HTTPResponseStatus(statusCode: Int(response.status.code), reasonPhrase: response.status.reasonPhrase), headers: headers,
            body: .init(buffer: ByteBuffer(bytes: response.body)))
    }
}
