import FederateTokens
public import FederateRelyingParty
public import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization

/// An `HTTPClient` built on
/// [AsyncHTTPClient](https://github.com/swift-server/async-http-client).
///
/// Every exchange follows the rules of the `HTTPClient` protocol:
///
/// - **No redirects** unless `HTTPRequest/followRedirects` is `true`. A 3xx answer is
///   returned as a plain `HTTPResponse` carrying its status and `Location` header.
///   When redirects are requested, at most 5 are followed and cycles are rejected.
/// - **One deadline for the whole exchange.** `HTTPRequest/timeout` covers connecting,
///   sending, waiting for the head *and* reading the body. Timeouts of any kind become
///   `FederateError/Code/httpTimeout`. Timeouts above 24 hours are treated as 24 hours.
/// - **Bounded memory.** A response whose `Content-Length` exceeds
///   `HTTPRequest/maxResponseBytes` is rejected before its body is read; a body without
///   a length (for example chunked) is read incrementally and abandoned as soon as it
///   exceeds the limit. Both throw `FederateError/Code/responseTooLarge`.
/// - **A `User-Agent` header** (`Federate/<version>` or the one given at creation) is
///   added unless the request already has one.
/// - Only `http` and `https` URLs are accepted (`FederateError/Code/invalidURL` otherwise).
/// - Any other transport failure becomes `FederateError/Code/httpFailed`. Error messages
///   name only the scheme, host and port of the URL, never its path, query, credentials,
///   the request headers or the body.
/// - Cancelling the calling task cancels the exchange and throws `CancellationError`.
/// - **Only where `HTTPRequest/destination` allows.** ``shared`` checks the address each
///   connection actually reached, before any request byte is written on it (for `https`, after
///   the TLS handshake), and refuses a loopback, link-local, private or unspecified one the
///   policy does not allow with `FederateError/Code/privateAddressRefused`: a name that resolves
///   to `127.0.0.1`, at any time (DNS rebinding included), is refused. Connections are never
///   shared between policies. A transport on a client you provide (``init(client:userAgent:)``)
///   cannot see its connections: it resolves the host first and refuses when any address is
///   not allowed, which leaves a DNS-rebinding window between that lookup and the client's own.
///
/// Response bodies are never decompressed.
///
/// Use ``shared`` unless you need to control the underlying AsyncHTTPClient yourself.
public struct AsyncHTTPClientTransport: FederateRelyingParty.HTTPClient {
    /// The `User-Agent` header value sent by default:
    /// `Federate/<version> (+https://github.com/federate-swift/federate)`.
    @usableFromInline package static let defaultUserAgent = HTTPRequest.defaultUserAgent

    /// The process-wide shared transport.
    ///
    /// It is backed by AsyncHTTPClient instances that live for the whole process (they are
    /// never shut down, so there is nothing to clean up): they run on AsyncHTTPClient's
    /// default event loop group (`MultiThreadedEventLoopGroup.singleton` on Linux), use a
    /// 5-second connect timeout, do not retry failed connection attempts (a refused
    /// connection fails at once) and do not decompress bodies. Redirects are disallowed,
    /// except for requests with `HTTPRequest/followRedirects` set, which use a second
    /// client that follows at most 5 redirects and rejects cycles.
    public static let shared = AsyncHTTPClientTransport(
        client: SharedClients.nonRedirecting,
        redirectingClient: SharedClients.redirecting,
        userAgent: defaultUserAgent,
        guarded: SharedClients.guarded
    )

    /// The client used for every request that does not ask for redirects to be followed.
    private let client: AsyncHTTPClient.HTTPClient
    /// The client used for requests with `HTTPRequest.followRedirects` set.
    private let redirectingClient: AsyncHTTPClient.HTTPClient
    /// The clients that check each connection's address, one pair per policy (``shared`` only).
    private let guarded: GuardedClients?

    /// The `User-Agent` header value added to requests that do not carry one.
    /// An empty string means no header is added.
    package let userAgent: String

    /// Creates a transport on top of an AsyncHTTPClient you provide.
    ///
    /// You own the client's lifecycle: keep it alive while the transport is in use and shut
    /// it down afterwards.
    ///
    /// Create the client with `redirectConfiguration: .disallow`. AsyncHTTPClient follows
    /// redirects by default, and a transport cannot change that; if the client follows a
    /// redirect for a request that does not allow it, ``send(_:)`` throws
    /// `FederateError/Code/invalidConfiguration` instead of returning the response (the
    /// redirect target will have been requested by then). The same client serves requests
    /// with `HTTPRequest/followRedirects` set, so those follow redirects only if the client
    /// is configured to.
    ///
    /// - Parameters:
    ///   - client: The AsyncHTTPClient to send requests with.
    ///   - userAgent: The `User-Agent` value added to requests that have none;
    ///     `Federate/<version> (+https://github.com/federate-swift/federate)` unless given.
    ///     Pass `""` to add none.
    public init(
        client: AsyncHTTPClient.HTTPClient,
        userAgent: String = AsyncHTTPClientTransport.defaultUserAgent
    ) {
        self.init(client: client, redirectingClient: client, userAgent: userAgent, guarded: nil)
    }

    private init(
        client: AsyncHTTPClient.HTTPClient,
        redirectingClient: AsyncHTTPClient.HTTPClient,
        userAgent: String,
        guarded: GuardedClients?
    ) {
        self.client = client
        self.redirectingClient = redirectingClient
        self.userAgent = userAgent
        self.guarded = guarded
    }

    /// Sends a request and returns the complete response.
    ///
    /// A non-2xx status (including 3xx when redirects are not followed) is returned, not thrown.
    ///
    /// - Throws: `FederateError` with code `FederateError/Code/httpTimeout`,
    ///   `FederateError/Code/responseTooLarge`, `FederateError/Code/invalidURL`,
    ///   `FederateError/Code/invalidConfiguration`, `FederateError/Code/privateAddressRefused`
    ///   or `FederateError/Code/httpFailed`; `CancellationError` if the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()

        let origin = HTTPRequest.redactedOrigin(of: request.url)
        let outgoing = try self.makeRequest(request, origin: origin)
        let client = try await self.client(for: request)
        let timeout = min(max(request.timeout, .zero), Self.maximumTimeout)
        let limit = max(0, request.maxResponseBytes)

        // One deadline for the whole exchange, expressed on both clocks: AsyncHTTPClient
        // enforces it up to the response head, `readBody` enforces it on the body.
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let nioDeadline = NIODeadline.now() + TimeAmount(timeout)

        do {
            let response = try await client.execute(outgoing, deadline: nioDeadline)

            if !request.followRedirects && response.history.count > 1 {
                throw FederateError(
                    .invalidConfiguration,
                    "the HTTP client followed a redirect from \(origin) although redirects are not allowed; "
                        + "create it with redirectConfiguration: .disallow"
                )
            }

            let status = Int(response.status.code)
            let headers = response.headers.map { (name: $0.name, value: $0.value) }

            let mayHaveBody =
                !request.method.caseInsensitiveEquals("HEAD") && status >= 200
                && status != 204 && status != 304
            if mayHaveBody, let declared = response.headers.first(name: "Content-Length"),
                Self.exceedsLimit(contentLength: declared, limit: limit)
            {
                // Dropping `response` unread makes AsyncHTTPClient abort the body and close the connection.
                throw Self.tooLargeError(origin: origin, limit: limit)
            }

            let body = try await Self.readBody(
                response.body,
                limit: limit,
                deadline: deadline,
                origin: origin,
                timeout: timeout
            )
            return HTTPResponse(status: status, headers: headers, body: body)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw Self.map(error, origin: origin, timeout: timeout)
        }
    }

    // MARK: - Implementation

    /// The client that sends `request`: one that may connect anywhere when its destination
    /// policy allows it for the URL's host, else one that checks each connection's address
    /// (or, on a client provided at creation, the host resolved first). A request that follows
    /// redirects under a public-only policy always goes through the checking client: the
    /// redirect targets are connections too, so a host name on the allow-list does not extend
    /// to them (list its network instead).
    private func client(for request: HTTPRequest) async throws -> AsyncHTTPClient.HTTPClient {
        let unchecked = request.followRedirects ? self.redirectingClient : self.client
        let destination = request.destination
        guard !destination.allowsAnyAddress else { return unchecked }
        if !request.followRedirects, let host = DestinationPolicy.host(of: request.url), destination.allowsAnyAddress(forHost: host) {
            return unchecked
        }
        guard let guarded else {
            guard !request.followRedirects else {
                throw FederateError(
                    .invalidConfiguration,
                    "a transport on an AsyncHTTPClient of your own cannot check where redirects lead: use AsyncHTTPClientTransport.shared for a request that follows redirects and may reach only public addresses"
                )
            }
            try await destination.checkResolvedAddresses(of: request.url)
            return unchecked
        }
        return guarded.client(for: destination, redirects: request.followRedirects)
    }

    /// The longest deadline applied; longer timeouts are clamped to it.
    private static let maximumTimeout: Duration = .seconds(86_400)

    /// Builds the AsyncHTTPClient request, validating the scheme and adding `User-Agent`.
    private func makeRequest(_ request: HTTPRequest, origin: String) throws -> HTTPClientRequest {
        let lowered = request.url.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw FederateError(.invalidURL, "only http and https URLs are supported (got \(origin))")
        }

        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)

        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        for header in request.headers {
            headers.add(name: header.name, value: header.value)
        }
        if !self.userAgent.isEmpty && !headers.contains(name: "User-Agent") {
            headers.add(name: "User-Agent", value: self.userAgent)
        }
        outgoing.headers = headers

        if let body = request.body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        return outgoing
    }

    /// Reads a body, enforcing the size limit and the deadline.
    ///
    /// The body is read in a child task raced against a timer: whichever finishes first
    /// cancels the other, and cancelling the read makes AsyncHTTPClient abort the transfer.
    private static func readBody(
        _ body: HTTPClientResponse.Body,
        limit: Int,
        deadline: ContinuousClock.Instant,
        origin: String,
        timeout: Duration
    ) async throws -> [UInt8] {
        try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                for try await chunk in body {
                    guard chunk.readableBytes <= limit - bytes.count else {
                        // Leaving the loop drops the body iterator, which aborts the transfer.
                        throw Self.tooLargeError(origin: origin, limit: limit)
                    }
                    bytes.append(contentsOf: chunk.readableBytesView)
                }
                return bytes
            }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw Self.timeoutError(origin: origin, timeout: timeout)
            }
            return bytes
        }
    }

    /// Whether a `Content-Length` value announces more than `limit` bytes.
    /// Values that are not decimal numbers are left to the HTTP parser.
    private static func exceedsLimit(contentLength value: String, limit: Int) -> Bool {
        var digits = Substring(value)
        while digits.first == " " || digits.first == "\t" { digits.removeFirst() }
        while digits.last == " " || digits.last == "\t" { digits.removeLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        guard let length = Int(digits) else { return true }  // all digits, but too large for Int
        return length > limit
    }

    /// Maps any error thrown during an exchange to a `FederateError`.
    private static func map(_ error: any Error, origin: String, timeout: Duration) -> FederateError {
        if let error = error as? FederateError {
            return error
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .getConnectionFromPoolTimeout:
                return Self.timeoutError(origin: origin, timeout: timeout)
            case .invalidURL, .emptyHost, .emptyScheme:
                return FederateError(.invalidURL, "the URL could not be used (\(error.shortDescription))")
            default:
                // `shortDescription` never includes associated values (such as header values).
                return FederateError(.httpFailed, "HTTP request to \(origin) failed: \(error.shortDescription)")
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return Self.timeoutError(origin: origin, timeout: timeout)
        }
        var description = String(describing: error)
        if description.count > 200 {
            description = String(description.prefix(200)) + "…"
        }
        return FederateError(.httpFailed, "HTTP request to \(origin) failed: \(description)")
    }

    private static func timeoutError(origin: String, timeout: Duration) -> FederateError {
        FederateError(.httpTimeout, "HTTP request to \(origin) did not complete within \(timeout)")
    }

    private static func tooLargeError(origin: String, limit: Int) -> FederateError {
        FederateError(.responseTooLarge, "response from \(origin) exceeds the limit of \(limit) bytes")
    }
}

/// The process-wide AsyncHTTPClient instances behind ``AsyncHTTPClientTransport/shared``.
///
/// Stored in `static let`s, they are created lazily, once, and never deinitialised, so they
/// need no shutdown.
private enum SharedClients {
    static let nonRedirecting = makeClient(redirects: .disallow, destination: nil)
    static let redirecting = makeClient(redirects: .follow(max: 5, allowCycles: false), destination: nil)
    static let guarded = GuardedClients()

    /// A client; with `destination`, one whose every connection is checked against it before
    /// it carries a request.
    static func makeClient(
        redirects: AsyncHTTPClient.HTTPClient.Configuration.RedirectConfiguration, destination: DestinationPolicy?
    ) -> AsyncHTTPClient.HTTPClient {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration(
            redirectConfiguration: redirects,
            timeout: .init(connect: .seconds(5)),
            decompression: .disabled
        )
        // Fail fast on refused connections instead of retrying until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let destination {
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                ConnectionCheck.verify(channel, destination: destination)
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
        }
        return AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: configuration
        )
    }
}

/// The shared transport's checking clients, a pair per destination policy, made on first use
/// and kept for the process (policies come from configuration, so they are few). Connections
/// are pooled per client, so a connection checked for one policy never serves another.
private final class GuardedClients: Sendable {
    private let clients = Mutex<[DestinationPolicy: (plain: AsyncHTTPClient.HTTPClient, redirecting: AsyncHTTPClient.HTTPClient)]>([:])

    func client(for destination: DestinationPolicy, redirects: Bool) -> AsyncHTTPClient.HTTPClient {
        let pair = clients.withLock { clients in
            if let existing = clients[destination] { return existing }
            let created = (
                plain: SharedClients.makeClient(redirects: .disallow, destination: destination),
                redirecting: SharedClients.makeClient(redirects: .follow(max: 5, allowCycles: false), destination: destination)
            )
            clients[destination] = created
            return created
        }
        return redirects ? pair.redirecting : pair.plain
    }
}

/// The check a checking client runs on each new connection, before any request is written on it.
private enum ConnectionCheck {
    static func verify(_ channel: any Channel, destination: DestinationPolicy) -> EventLoopFuture<Void> {
        guard let remote = channel.remoteAddress, let text = remote.ipAddress, let address = IPAddress(host: text) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(
                FederateError(.privateAddressRefused, "the connection's remote address could not be read, so it cannot be checked"))
        }
        guard destination.permits(address: address) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(destination.refusal(origin: "a connection", address: address.bytes))
        }
        return channel.eventLoop.makeSucceededVoidFuture()
    }
}
