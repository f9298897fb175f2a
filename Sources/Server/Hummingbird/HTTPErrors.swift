public import FederateServer
public import Hummingbird

extension ServerRequest {
    /// `request` as Federate's server logic reads it: its method, path, query and fields.
    package init(_ request: Request) {
        self.init(method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers)
    }

    /// `request` as Federate's server logic reads it: its method, path, query and fields, and
    /// the connection's peer address when `context` knows it (``FederateContext`` does).
    package init(_ request: Request, context: some RequestContext) {
        self.init(
            method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers,
            clientAddress: (context as? any RemoteAddressRequestContext)?.remoteAddress?.ipAddress)
    }
}

extension Response {
    /// Hummingbird's response for Federate's `response`.
    package init(_ response: ServerResponse) {
        self.init(status: response.status, headers: response.headers, body: .init(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}

// Every error Federate's server logic throws answers for itself (`ServerResponseError`):
// JSON `{"error": CODE, "message": TEXT}`, with the status and headers it carries. No handler
// catches an error to render it by hand.

extension ServerResponseError {
    /// Hummingbird's response for the error: its `serverResponse`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(serverResponse)
    }
}

extension FederateError: HTTPResponseError {}

extension FederateHTTPError: HTTPResponseError {}

extension BearerChallenge: HTTPResponseError {}
