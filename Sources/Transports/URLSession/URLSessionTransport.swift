#if canImport(FoundationNetworking)
    public import FoundationNetworking
    import Foundation
#else
    public import Foundation
#endif
public import FederateRelyingParty
import FederateTokens
import Synchronization

/// An `HTTPClient` built on Foundation's `URLSession`, for applications that do not want
/// to depend on SwiftNIO.
///
/// Every exchange follows the same rules as `AsyncHTTPClientTransport`:
///
/// - **No redirects** unless `HTTPRequest/followRedirects` is `true`. A 3xx answer is
///   returned as a plain `HTTPResponse` carrying its status and `Location` header.
///   When redirects are requested, at most 5 are followed (301, 302, 303, 307 and 308, to
///   `http` and `https` URLs only) and cycles are rejected (`FederateError/Code/httpFailed`).
///   A 303, or a 301/302 answering a `POST`, turns the request into a `GET` without a body;
///   a redirect to another origin drops `Authorization`, `Proxy-Authorization`, `Cookie` and
///   `Origin`.
/// - **One deadline for the whole exchange.** `HTTPRequest/timeout` covers connecting,
///   sending, waiting for the head *and* reading the body, across redirects. Timeouts of any
///   kind become `FederateError/Code/httpTimeout`. Timeouts above 24 hours are treated as
///   24 hours.
/// - **Bounded memory.** A response whose `Content-Length` exceeds
///   `HTTPRequest/maxResponseBytes` is rejected as soon as its head arrives; a body without
///   a length (for example chunked) is read incrementally and abandoned as soon as it
///   exceeds the limit. Both throw `FederateError/Code/responseTooLarge`.
/// - **A `User-Agent` header** (`Federate/<version>` or the one given at creation) is
///   added unless the request already has one.
/// - Only `http` and `https` URLs are accepted (`FederateError/Code/invalidURL` otherwise).
/// - Any other transport failure becomes `FederateError/Code/httpFailed`. Error messages
///   name only the scheme, host and port of the URL, never its path, query, credentials,
///   the request headers or the body.
/// - Cancelling the calling task cancels the exchange and throws `CancellationError`.
/// - No cookies are stored or sent and nothing is cached.
/// - **Only where `HTTPRequest/destination` allows**, as far as URLSession lets a transport see:
///   before each exchange (and each redirect it follows) the host is resolved with the system
///   resolver and the request is refused with `FederateError/Code/privateAddressRefused` when
///   any address is loopback, link-local, private or unspecified and the policy does not allow
///   it. URLSession then resolves the name again to connect, and does not say where it
///   connected: a name whose answers change between the two lookups (DNS rebinding with a
///   short TTL) can still reach a refused address. Where that matters, use
///   `AsyncHTTPClientTransport.shared`, which checks the address each connection reached.
/// - A non-2xx status is returned, not thrown.
///
/// ## What URLSession cannot do
///
/// - **Header order and repeated headers.** URLSession keeps headers in dictionaries. Request
///   headers are sent in no particular order, and repeated request headers are merged into
///   one, their values joined with `,`. Response headers lose their order too (this transport
///   returns them sorted by name, so the order is at least stable), and repeated response
///   headers arrive as one, their values joined with `, ` (`Set-Cookie` included).
/// - **Content codings.** URLSession always decodes a `Content-Encoding` it understands, and
///   this cannot be switched off. The transport asks for no encoding (on Linux it removes the
///   `Accept-Encoding: deflate, gzip, br, zstd` header libcurl would add; on Apple platforms it
///   sends `Accept-Encoding: identity`), so a conforming server sends the body unencoded. If a
///   server encodes the body anyway, the returned body holds the *decoded* bytes while the
///   returned headers are those the server sent (`Content-Encoding` and `Content-Length`
///   still describe the encoded body); `HTTPRequest/maxResponseBytes` then limits the
///   decoded bytes, which also guards against decompression bombs. On Linux, a
///   `Content-Encoding` libcurl does not know (anything but `identity`, `gzip`, `deflate`,
///   `br` and `zstd`), or an encoded body that fails to decode, fails the exchange with
///   `FederateError/Code/httpFailed`.
/// - **Redirect bodies on Linux.** swift-corelibs-foundation reads the whole body of a 301,
///   302, 303 or 305–308 answer before the transport sees the answer, so for those the size
///   limit is enforced only once the body has been read (the deadline still bounds the time
///   spent). Such an answer without a `Location` header comes back with an empty body.
///
/// Use ``shared`` unless you need your own `URLSessionConfiguration` (for example for a proxy).
public struct URLSessionTransport: HTTPClient {
    /// The `User-Agent` header value sent by default:
    /// `Federate/<version> (+https://github.com/federate-swift/federate)`.
    @usableFromInline package static let defaultUserAgent = HTTPRequest.defaultUserAgent

    /// The process-wide shared transport, with the default configuration (an ephemeral one)
    /// and `User-Agent`.
    ///
    /// Its `URLSession` lives for the whole process and is never invalidated, so there is
    /// nothing to clean up.
    public static let shared = URLSessionTransport()

    /// A new ephemeral configuration with the settings every transport uses: no cookie
    /// storage, no cookies sent or accepted, no credential storage, no URL cache.
    @usableFromInline static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        applyRequiredSettings(to: configuration)
        return configuration
    }

    /// The `User-Agent` header value added to requests that do not carry one.
    /// An empty string means no header is added.
    package let userAgent: String

    /// The session this transport (and every copy of it) sends through.
    private let session: SessionHandle

    /// Creates a transport with its own `URLSession`.
    ///
    /// The session is created from a copy of `configuration` in which cookies, credential
    /// storage and the URL cache are always switched off; other
    /// settings, such as proxies or `httpAdditionalHeaders`, are kept. The session is
    /// invalidated once the last copy of this transport is gone and its requests are done.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; an ephemeral one unless given.
    ///   - userAgent: The `User-Agent` value added to requests that have none;
    ///     `Federate/<version> (+https://github.com/federate-swift/federate)` unless given.
    ///     Pass `""` to add none.
    public init(
        configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration,
        userAgent: String = URLSessionTransport.defaultUserAgent
    ) {
        // Work on a copy: the caller's configuration object must not change under them.
        let copy = configuration.copy() as? URLSessionConfiguration ?? Self.defaultConfiguration
        Self.applyRequiredSettings(to: copy)
        self.session = SessionHandle(configuration: copy)
        self.userAgent = userAgent
    }

    /// Sends a request and returns the complete response.
    ///
    /// A non-2xx status (including 3xx when redirects are not followed) is returned, not thrown.
    ///
    /// - Throws: `FederateError` with code `FederateError/Code/httpTimeout`,
    ///   `FederateError/Code/responseTooLarge`, `FederateError/Code/invalidURL` or
    ///   `FederateError/Code/httpFailed`; `CancellationError` if the calling task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()

        let origin = HTTPRequest.redactedOrigin(of: request.url)
        _ = try Self.validatedURL(request.url, origin: origin)  // fail before any work is started
        let timeout = min(max(request.timeout, .zero), Self.maximumTimeout)
        guard timeout > .zero else { throw Failures.timeout(origin: origin, timeout: timeout) }

        do {
            return try await Self.withDeadline(
                ContinuousClock.now.advanced(by: timeout),
                timeoutError: Failures.timeout(origin: origin, timeout: timeout)
            ) {
                try await self.sendFollowingRedirects(request, timeout: timeout)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw error
        }
    }

    // MARK: - Exchanges

    /// The longest deadline applied; longer timeouts are clamped to it.
    private static let maximumTimeout: Duration = .seconds(86_400)

    /// The most redirects followed for one request.
    private static let maximumRedirects = 5

    /// Switches off everything that would keep state between exchanges.
    private static func applyRequiredSettings(to configuration: URLSessionConfiguration) {
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    }

    /// Runs `operation`, throwing `timeoutError` (and cancelling the operation) if it has not
    /// finished by `deadline`.
    ///
    /// URLSession's own timeouts cannot do this: `timeoutIntervalForRequest` is an idle timeout
    /// on Apple platforms and a per-hop timer on Linux, and neither spans redirects and body.
    /// The caller gets its answer at the deadline even if the operation is slow to notice its
    /// cancellation: the operation is not awaited once the deadline has passed.
    private static func withDeadline(
        _ deadline: ContinuousClock.Instant,
        timeoutError: FederateError,
        _ operation: @escaping @Sendable () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let work = Task { try await operation() }
        let answer = FirstAnswer()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.waiting(continuation)
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    guard !Task.isCancelled else { return }
                    work.cancel()
                    answer.resume(.failure(timeoutError))
                }
                Task {
                    let result = await work.result
                    timer.cancel()
                    answer.resume(result)
                }
            }
        } onCancel: {
            work.cancel()
        }
    }

    /// Sends a request, following redirects itself when the request asks for it.
    ///
    /// URLSession is never allowed to follow a redirect: on Linux it would resend a 307/308
    /// request without its body and keep credentials across origins.
    private func sendFollowingRedirects(_ request: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        var current = request
        var visited: Set<String> = []
        var redirects = 0
        while true {
            let origin = HTTPRequest.redactedOrigin(of: current.url)
            let url = try Self.validatedURL(current.url, origin: origin)
            visited.insert(url.absoluteString)

            let response = try await self.sendOnce(current, url: url, origin: origin, timeout: timeout)
            guard current.followRedirects, let target = Self.redirectTarget(of: response, from: url) else {
                return response
            }
            redirects += 1
            guard redirects <= Self.maximumRedirects else {
                throw Failures.httpFailed(origin: origin, "it redirected more than \(Self.maximumRedirects) times")
            }
            guard let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw Failures.httpFailed(origin: origin, "it redirected to a URL that is not http or https")
            }
            guard !visited.contains(target.absoluteString) else {
                throw Failures.httpFailed(origin: origin, "it redirected in a cycle")
            }
            current = Self.redirected(current, from: url, to: target, status: response.status)
        }
    }

    /// Performs one request/response exchange with URLSession (no redirects).
    private func sendOnce(
        _ request: HTTPRequest,
        url: URL,
        origin: String,
        timeout: Duration
    ) async throws -> HTTPResponse {
        // URLSession cannot show the address it connects to: resolve first, refuse a private one.
        try await request.destination.checkResolvedAddresses(of: request.url)
        let urlRequest = try self.makeURLRequest(request, url: url, origin: origin, timeout: timeout)
        let exchange = Exchange(method: request.method, limit: request.maxResponseBytes, origin: origin)
        self.session.start(urlRequest, for: exchange)

        do {
            return try await withTaskCancellationHandler {
                try await exchange.response()
            } onCancel: {
                exchange.finish(.failure(CancellationError()))
            }
        } catch {
            // The deadline, the size limit or the caller ended the exchange early: the transfer
            // must not go on in the background.
            self.session.cancel(exchange)
            throw error
        }
    }

    /// The absolute URL a response redirects to, if it is a redirect to follow.
    private static func redirectTarget(of response: HTTPResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status),
            let location = response.header("Location"),
            let target = URL(string: location, relativeTo: url)
        else { return nil }
        return target.absoluteURL
    }

    /// The request to send to a redirect's target, following RFC 9110 and AsyncHTTPClient:
    /// 303 (except for `HEAD`) and 301/302 after `POST` become a `GET` without body, and
    /// credentials are not carried to another origin.
    private static func redirected(_ request: HTTPRequest, from url: URL, to target: URL, status: Int) -> HTTPRequest {
        var next = request
        next.url = target.absoluteString
        let method = request.method.uppercased()
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.method = "GET"
            next.body = nil
            next.headers.removeAll { ["content-length", "content-type"].contains($0.name.lowercased()) }
        }
        if !Self.haveSameOrigin(url, target) {
            let credentials = ["authorization", "proxy-authorization", "cookie", "origin"]
            next.headers.removeAll { credentials.contains($0.name.lowercased()) }
        }
        return next
    }

    private static func haveSameOrigin(_ first: URL, _ second: URL) -> Bool {
        func origin(_ url: URL) -> (String?, String?, Int?) {
            let scheme = url.scheme?.lowercased()
            return (scheme, url.host?.lowercased(), url.port ?? (scheme == "https" ? 443 : 80))
        }
        return origin(first) == origin(second)
    }

    // MARK: - Building requests

    /// How much later than our own deadline URLSession's timer is set, so that ours fires first.
    private static let urlSessionTimeoutMargin: Double = 5

    /// Builds the `URLRequest`: validates the headers, adds `User-Agent` and keeps URLSession
    /// from adding headers of its own.
    private func makeURLRequest(
        _ request: HTTPRequest,
        url: URL,
        origin: String,
        timeout: Duration
    ) throws -> URLRequest {
        // URLSession's own timer is set after our deadline, so that ours (and its error) wins.
        // swift-corelibs-foundation truncates it to whole seconds, hence the rounding up.
        let interval = Self.seconds(timeout).rounded(.up) + Self.urlSessionTimeoutMargin
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: interval)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false

        for header in request.headers {
            guard Self.isValidHeader(header) else {
                throw Failures.httpFailed(
                    origin: origin,
                    "a header name or value contains characters HTTP does not allow"
                )
            }
            // URLRequest merges a repeated name into one header, values joined with ",".
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !self.userAgent.isEmpty && urlRequest.value(forHTTPHeaderField: "User-Agent") == nil {
            urlRequest.setValue(self.userAgent, forHTTPHeaderField: "User-Agent")
        }
        self.suppressImplicitHeaders(in: &urlRequest)

        if let body = request.body {
            urlRequest.httpBody = Data(body)
        }
        return urlRequest
    }

    #if canImport(FoundationNetworking)
        /// Headers that swift-corelibs-foundation or libcurl add to every request on their own:
        /// `Accept: */*`, `Accept-Encoding: deflate, gzip, br, zstd` (an invitation to compress),
        /// `Accept-Language` (the process locale), `User-Agent: <process> (unknown version) curl/…`
        /// and, for a `POST` with a body, `Content-Type: application/x-www-form-urlencoded`.
        private static let implicitHeaders = ["Accept", "Accept-Encoding", "Accept-Language", "User-Agent", "Content-Type"]

        /// Keeps swift-corelibs-foundation and libcurl from adding ``implicitHeaders``, so that the
        /// request carries only the caller's headers and `User-Agent`, as with AsyncHTTPClient.
        ///
        /// A header set to a blank value (one space) reaches libcurl as `Name:  `, which libcurl
        /// documents as "remove this header": it then sends neither the blank value nor its own
        /// default. (An empty value would instead be sent as an empty header.)
        private func suppressImplicitHeaders(in urlRequest: inout URLRequest) {
            for name in Self.implicitHeaders
            where urlRequest.value(forHTTPHeaderField: name) == nil
                && !self.session.additionalHeaderNames.contains(name.lowercased())
            {
                urlRequest.setValue(" ", forHTTPHeaderField: name)
            }
        }
    #else
        /// Apple's URLSession adds `Accept-Encoding: gzip, deflate, br` and decodes what it gets;
        /// asking for `identity` keeps conforming servers from encoding the body.
        private func suppressImplicitHeaders(in urlRequest: inout URLRequest) {
            if urlRequest.value(forHTTPHeaderField: "Accept-Encoding") == nil
                && !self.session.additionalHeaderNames.contains("accept-encoding")
            {
                urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
        }
    #endif

    /// Parses the URL and checks that it is an absolute `http` or `https` URL with a host.
    private static func validatedURL(_ string: String, origin: String) throws -> URL {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased() else {
            throw FederateError(.invalidURL, "the URL could not be parsed as an absolute URL (\(origin))")
        }
        guard scheme == "http" || scheme == "https" else {
            throw FederateError(.invalidURL, "only http and https URLs are supported (got \(origin))")
        }
        guard let host = url.host, !host.isEmpty else {
            throw FederateError(.invalidURL, "the URL has no host (\(origin))")
        }
        return url
    }

    /// Whether a header can be sent as is: a non-empty token as name, and a value without
    /// CR, LF or NUL (which would let a value smuggle in extra header lines).
    private static func isValidHeader(_ header: (name: String, value: String)) -> Bool {
        let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
        let nameIsToken =
            !header.name.isEmpty
            && header.name.utf8.allSatisfy { byte in
                let isDigit = byte >= 0x30 && byte <= 0x39
                let isLetter = byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A
                return isDigit || isLetter || tokenSymbols.contains(byte)
            }
        let valueIsClean = !header.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
        return nameIsToken && valueIsClean
    }

    /// A duration in seconds, as `URLRequest` wants it.
    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

// MARK: - Session

/// Owns one `URLSession` and the delegate that serves all of its tasks.
///
/// Design: one session per transport value (shared by all its copies, `shared` included), and
/// one delegate that routes each callback to the ``Exchange`` of its task, found by task
/// identifier. A session per request would be simpler, but `URLSession` retains its delegate
/// until invalidated, so every request would have to invalidate its session, and connections
/// could not be reused. This object invalidates its session when the last transport copy that
/// refers to it goes away (running tasks may finish first); the one behind `shared` lives in a
/// `static let` and therefore is never invalidated.
private final class SessionHandle: Sendable {
    let session: URLSession
    let delegate: SessionDelegate
    /// Lowercased names of the configuration's `httpAdditionalHeaders`.
    let additionalHeaderNames: Set<String>

    init(configuration: URLSessionConfiguration) {
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        // Serial: a task's callbacks must be handled in order, and `cancel(_:)` relies on it.
        queue.maxConcurrentOperationCount = 1
        queue.name = "Federate.URLSessionTransport"
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.additionalHeaderNames = Set(
            (configuration.httpAdditionalHeaders ?? [:]).keys.compactMap { ($0.base as? String)?.lowercased() }
        )
    }

    /// Cancels a task from the delegate queue.
    ///
    /// swift-corelibs-foundation crashes (`fatalError`) if a task is cancelled while it waits
    /// for the redirect delegate and the delegate then answers. Cancelling only from the serial
    /// delegate queue, and only after the task's ``Exchange`` has finished, makes every redirect
    /// callback either run before the cancellation (and answer normally) or see the finished
    /// exchange (and not answer at all; see ``SessionDelegate``).
    func cancel(_ exchange: Exchange) {
        self.session.delegateQueue.addOperation { exchange.task?.cancel() }
    }

    /// Creates and starts the task for `request` on the delegate queue, never on the calling
    /// thread: swift-corelibs-foundation's `dataTask(with:)` and `resume()` wait on the
    /// session's internal queue, and a busy session once held both of Swift's cooperative
    /// threads there (on two cores, the whole process). The serial queue runs this before
    /// the task's callbacks and before ``cancel(_:)``.
    func start(_ request: URLRequest, for exchange: Exchange) {
        let session = self.session
        let delegate = self.delegate
        session.delegateQueue.addOperation {
            guard !exchange.isFinished else { return }  // ended (deadline, caller) before it began
            let task = session.dataTask(with: request)
            delegate.register(exchange, for: task)
            exchange.task = task
            task.resume()
        }
    }

    deinit {
        self.session.finishTasksAndInvalidate()
    }
}

/// The delegate of a transport's session: routes every callback to its task's ``Exchange``.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: Exchange]>([:])

    /// Routes the callbacks of `task` to `exchange` until the task completes.
    func register(_ exchange: Exchange, for task: URLSessionTask) {
        self.exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        self.exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = self.exchange(for: dataTask), exchange.receiveHead(response) else {
            completionHandler(.cancel)
            // swift-corelibs-foundation ignores the disposition (it cannot pause libcurl), so
            // the transfer would go on: cancel the task itself.
            dataTask.cancel()
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = self.exchange(for: dataTask), exchange.receiveBody(data) else {
            dataTask.cancel()
            return
        }
    }

    /// Never lets URLSession follow a redirect: the 3xx answer completes the task, and
    /// `send` decides whether to follow it.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let exchange = self.exchange(for: task), exchange.isFinished {
            // The exchange is over and the task is about to be cancelled from this queue;
            // answering now would crash swift-corelibs-foundation (see `SessionHandle.cancel`).
            return
        }
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = self.exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(fallbackResponse: task.response, error: error)
    }
}

// MARK: - Exchange

/// One request/response exchange: what has been received so far and how it ended.
///
/// `send` waits on it; the session delegate and the cancellation handler feed it from other
/// threads, hence the `Mutex`. Whoever finishes it first decides the outcome; later events
/// are ignored.
private final class Exchange: Sendable {
    /// The status line and headers of a response.
    private struct Head: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]

        init?(_ response: URLResponse?) {
            guard let response = response as? HTTPURLResponse else { return nil }
            self.status = response.statusCode
            self.headers = response.allHeaderFields
                .compactMap { name, value -> (name: String, value: String)? in
                    guard let name = name.base as? String, let value = value as? String else { return nil }
                    return (name: name, value: value)
                }
                // URLSession loses the original order; sorting at least makes it stable.
                .sorted { $0.name.lowercased() < $1.name.lowercased() }
        }

        func value(of name: String) -> String? {
            let wanted = name.lowercased()
            return self.headers.first { $0.name.lowercased() == wanted }?.value
        }
    }

    private struct State {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var outcome: Result<HTTPResponse, any Error>?
        var head: Head?
        var body: [UInt8] = []
    }

    private let method: String
    private let limit: Int
    private let origin: String
    private let state = Mutex(State())
    private let startedTask = Mutex<URLSessionTask?>(nil)

    /// The URLSession task carrying the exchange, once started (on the delegate queue).
    var task: URLSessionTask? {
        get { self.startedTask.withLock { $0 } }
        set { self.startedTask.withLock { $0 = newValue } }
    }

    init(method: String, limit: Int, origin: String) {
        self.method = method
        self.limit = max(0, limit)
        self.origin = origin
    }

    /// Whether the outcome has been decided.
    var isFinished: Bool {
        self.state.withLock { $0.outcome != nil }
    }

    /// Waits until the exchange has finished, then returns its response or throws its error.
    func response() async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = self.state.withLock { state -> Result<HTTPResponse, any Error>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let outcome { continuation.resume(with: outcome) }
        }
    }

    /// Ends the exchange with `outcome`, unless it has already ended.
    func finish(_ outcome: Result<HTTPResponse, any Error>) {
        let waiting = self.state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            state.body = []  // no longer needed; free it now rather than when the task completes
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(with: outcome)
    }

    /// Records the response head. Returns `false` when the transfer should stop: the head
    /// announces a body larger than the limit (the exchange then fails) or the exchange is over.
    func receiveHead(_ response: URLResponse) -> Bool {
        guard let head = Head(response) else {
            self.finish(.failure(Failures.httpFailed(origin: self.origin, "the response is not an HTTP response")))
            return false
        }
        if self.mayHaveBody(status: head.status), let length = head.value(of: "Content-Length"),
            Self.exceedsLimit(contentLength: length, limit: self.limit)
        {
            self.finish(.failure(Failures.tooLarge(origin: self.origin, limit: self.limit)))
            return false
        }
        return self.state.withLock { state in
            state.head = head
            return state.outcome == nil
        }
    }

    /// Appends a piece of the body. Returns `false` when the transfer should stop: the body
    /// has outgrown the limit (the exchange then fails) or the exchange is over.
    func receiveBody(_ data: Data) -> Bool {
        enum Verdict { case appended, overflow, finished }
        let verdict = self.state.withLock { state -> Verdict in
            guard state.outcome == nil else { return .finished }
            guard data.count <= self.limit - state.body.count else { return .overflow }
            state.body.append(contentsOf: data)
            return .appended
        }
        if verdict == .overflow {
            self.finish(.failure(Failures.tooLarge(origin: self.origin, limit: self.limit)))
        }
        return verdict == .appended
    }

    /// Ends the exchange when its task completes.
    ///
    /// - Parameters:
    ///   - fallbackResponse: The task's response, used when no head was delivered (on Linux,
    ///     a 301–308 answer without `Location` completes without one).
    ///   - error: The error the task completed with, if any.
    func complete(fallbackResponse: URLResponse?, error: (any Error)?) {
        let result = self.state.withLock { state -> Result<HTTPResponse, any Error>? in
            guard state.outcome == nil else { return nil }
            if let error {
                let context = Self.failureContext(head: state.head, received: state.body.count)
                return .failure(Failures.transportFailure(error, origin: self.origin, context: context))
            }
            guard let head = state.head ?? Head(fallbackResponse) else {
                return .failure(Failures.httpFailed(origin: self.origin, "no response was received"))
            }
            return .success(HTTPResponse(status: head.status, headers: head.headers, body: state.body))
        }
        if let result { self.finish(result) }
    }

    /// What the head and the bytes received tell about a failure, for its message.
    private static func failureContext(head: Head?, received: Int) -> String? {
        guard let head else { return nil }
        if let coding = head.value(of: "Content-Encoding"), coding.lowercased() != "identity" {
            // On Linux, libcurl fails on codings it does not know or cannot decode.
            return "the response declares Content-Encoding \"\(coding.prefix(40))\", which URLSession tries to decode"
        }
        if let declared = head.value(of: "Content-Length"),
            let length = Int(declared.trimmingCharacters(in: .whitespaces)), received < length
        {
            return "the body ended after \(received) of \(length) bytes"
        }
        return nil
    }

    /// Whether a response to this request with this status can carry a body.
    private func mayHaveBody(status: Int) -> Bool {
        self.method.uppercased() != "HEAD" && status >= 200 && status != 204 && status != 304
    }

    /// Whether a `Content-Length` value announces more than `limit` bytes.
    /// Values that are not decimal numbers are left to URLSession.
    private static func exceedsLimit(contentLength value: String, limit: Int) -> Bool {
        let digits = value.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        guard let length = Int(digits) else { return true }  // all digits, but too large for Int
        return length > limit
    }
}

// MARK: - Errors

/// The errors the transport throws. Messages name only the origin (`scheme://host:port`).
private enum Failures {
    static func timeout(origin: String, timeout: Duration) -> FederateError {
        FederateError(.httpTimeout, "HTTP request to \(origin) did not complete within \(timeout)")
    }

    static func tooLarge(origin: String, limit: Int) -> FederateError {
        FederateError(.responseTooLarge, "response from \(origin) exceeds the limit of \(limit) bytes")
    }

    static func httpFailed(origin: String, _ reason: String) -> FederateError {
        FederateError(.httpFailed, "HTTP request to \(origin) failed: \(reason)")
    }

    /// Maps an error URLSession completed a task with.
    ///
    /// Only the error *code* is used: the error's description and user info contain the
    /// full URL, and libcurl's messages may contain parts of it too.
    static func transportFailure(_ error: any Error, origin: String, context: String?) -> FederateError {
        guard let code = (error as? URLError)?.code else {
            let nsError = error as NSError
            return httpFailed(origin: origin, "\(nsError.domain) error \(nsError.code)")
        }
        switch code {
        case .timedOut:
            // URLSession's own timer fired; it is set later than our deadline, so this is rare.
            return FederateError(.httpTimeout, "HTTP request to \(origin) timed out")
        case .badURL, .unsupportedURL:
            return FederateError(.invalidURL, "URLSession could not use the URL (\(origin))")
        default:
            let reason = "\(describe(code)) (URLError \(code.rawValue))"
            return httpFailed(origin: origin, context.map { "\(reason); \($0)" } ?? reason)
        }
    }

    private static func describe(_ code: URLError.Code) -> String {
        switch code {
        case .cannotConnectToHost: "could not connect to the host"
        case .cannotFindHost, .dnsLookupFailed: "the host name could not be resolved"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "the network is not available"
        case .badServerResponse: "the server's response is not valid HTTP"
        case .secureConnectionFailed: "the TLS connection could not be established"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            "the server's certificate is not trusted"
        case .cancelled: "the request was cancelled"
        default: "URLSession failed"
        }
    }
}

/// The one answer of ``URLSessionTransport``'s deadline race: the response, its error or the
/// timeout, whichever comes first; later ones are dropped.
private final class FirstAnswer: Sendable {
    private let continuation = Mutex<CheckedContinuation<HTTPResponse, any Error>?>(nil)

    /// Sets the continuation to resume.
    func waiting(_ new: CheckedContinuation<HTTPResponse, any Error>) {
        continuation.withLock { $0 = new }
    }

    /// Resumes with `result` unless another answer came first.
    func resume(_ result: Result<HTTPResponse, any Error>) {
        let waiting = continuation.withLock { waiting -> CheckedContinuation<HTTPResponse, any Error>? in
            defer { waiting = nil }
            return waiting
        }
        waiting?.resume(with: result)
    }
}
