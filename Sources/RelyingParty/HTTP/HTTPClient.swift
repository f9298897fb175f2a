package import FederateTokens

/// The transport Federate's core talks through.
///
/// Two implementations ship as modules of their own: `AsyncHTTPClientTransport`
/// (FederateAsyncHTTPClient, SwiftNIO) and `URLSessionTransport` (FederateURLSession,
/// Foundation). Every API that talks to a provider takes one explicitly. Tests and applications
/// may inject their own (for example to add tracing, or to inject failures).
///
/// Implementations must:
/// - never follow redirects unless ``HTTPRequest/followRedirects`` is `true`;
/// - stop reading and throw `FederateError/Code/responseTooLarge` once the body exceeds
///   ``HTTPRequest/maxResponseBytes``;
/// - throw `FederateError/Code/httpTimeout` when ``HTTPRequest/timeout`` elapses;
/// - throw `FederateError` (`FederateError/Code/httpFailed`) for transport failures;
/// - refuse to send a request to an address its ``HTTPRequest/destination`` does not permit
///   (``DestinationPolicy/permits(host:address:)`` on the address actually connected to, or
///   resolved just before), with `FederateError/Code/privateAddressRefused`.
///
/// A non-2xx status is not an error at this level: it is returned as a response.
public protocol HTTPClient: Sendable {
    /// Sends a request and returns the complete response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP request, as a value.
public struct HTTPRequest: Sendable {
    /// The method, e.g. `GET` or `POST`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Request headers, in order. Names are case-insensitive.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: [UInt8]?
    /// The deadline for the whole exchange.
    public var timeout: Duration
    /// The largest response body accepted.
    public var maxResponseBytes: Int
    /// Whether redirects are followed. Federate never sets this for discovery, key sets or token calls.
    public var followRedirects: Bool
    /// Which addresses the request may connect to (and so each redirect it follows). By default
    /// the URL is its own issuer: any address for a loopback host, else public addresses only.
    /// Federate's requests for a provider carry that provider's policy (``ProviderMetadata/destination``),
    /// judged per endpoint: a provider on loopback lends its "any address" only to URLs whose
    /// own host is on loopback (a URL naming another host reaches public addresses only).
    public var destination: DestinationPolicy

    /// The default deadline for an exchange: 10 seconds.
    package static let defaultTimeout: Duration = .seconds(10)

    /// Creates a request.
    public init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(10),
        maxResponseBytes: Int = 1 << 20,
        followRedirects: Bool = false,
        destination: DestinationPolicy? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.followRedirects = followRedirects
        self.destination = (destination ?? DestinationPolicy(issuer: url)).forEndpoint(url)
    }
}

extension HTTPClient {
    /// ``send(_:)`` with every failure as a `FederateError`: a transport's own errors as they
    /// are, cancellation as `FederateError.Code.cancelled`, anything else as
    /// `FederateError.Code.httpFailed` with the error as its `cause`.
    package func exchange(_ request: HTTPRequest) async throws(FederateError) -> HTTPResponse {
        do {
            return try await send(request)
        } catch is CancellationError {
            throw FederateError(.cancelled, "the request to \(HTTPRequest.redactedOrigin(of: request.url)) was cancelled")
        } catch {
            throw .wrapping(error, as: .httpFailed, "the request to \(HTTPRequest.redactedOrigin(of: request.url)) failed")
        }
    }
}

extension HTTPRequest {
    /// The `User-Agent` the transports send by default:
    /// `Federate/<version> (+https://github.com/federate-swift/federate)`.
    package static let defaultUserAgent = "Federate/\(FederateVersion.string) (+https://github.com/federate-swift/federate)"

    /// `scheme://host[:port]` of a URL, without credentials, path, query or fragment: what a
    /// transport's error message may name.
    package static func redactedOrigin(of url: String) -> String {
        guard let separator = url.firstRange(of: "://") else { return "(unparsable URL)" }
        let scheme = url[..<separator.lowerBound]
        let rest = url[separator.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        let origin = "\(scheme)://\(authority)"
        return origin.count > 120 ? String(origin.prefix(120)) + "…" : origin
    }
}

/// An HTTP response, as a value.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers, in order.
    public var headers: [(name: String, value: String)]
    /// The complete body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header with this name (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Whether the status is in 200...299.
    var isSuccess: Bool { (200...299).contains(status) }
}

extension String {
    /// ASCII case-insensitive comparison (header names, token types).
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = self.utf8, b = other.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}
