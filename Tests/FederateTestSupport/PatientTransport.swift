public import Federate

/// The real AsyncHTTPClient transport with a test's patience: a request that keeps the SDK's
/// default timeout (`HTTPRequest.defaultTimeout`, 10 s) gets 60 s, so a loaded machine (a
/// parallel run on two cores) cannot fail a test that is not about timeouts. A test about
/// timeouts sets its own timeout, which is kept.
public struct PatientTransport: HTTPClient {
    /// The one instance.
    public static let shared = PatientTransport()

    /// How long a request with the default timeout may take here.
    public static let patience: Duration = .seconds(60)

    /// Sends `request` over `AsyncHTTPClientTransport.shared`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        if request.timeout == HTTPRequest.defaultTimeout { request.timeout = Self.patience }
        return try await AsyncHTTPClientTransport.shared.send(request)
    }
}
