import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request as received by ``LoopbackHTTPServer``.
public struct TestHTTPRequest: Sendable {
    /// The method, e.g. `GET`.
    public let method: String
    /// The path, without the query string, e.g. `/token`.
    public let path: String
    /// The query string (without `?`), if the URI has one.
    public let query: String?
    /// The request target exactly as sent, e.g. `/token?x=1`.
    public let uri: String
    /// The headers, in order, as sent.
    public let headers: [(name: String, value: String)]
    /// The complete body (empty when there is none).
    public let body: [UInt8]

    /// Creates a request value.
    public init(method: String, uri: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.uri = uri
        if let question = uri.firstIndex(of: "?") {
            self.path = String(uri[..<question])
            self.query = String(uri[uri.index(after: question)...])
        } else {
            self.path = uri
            self.query = nil
        }
        self.headers = headers
        self.body = body
    }

    /// The first value of the header with this name (ASCII case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// All values of the headers with this name (ASCII case-insensitive), in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body decoded as UTF-8.
    public var bodyString: String { String(decoding: body, as: UTF8.self) }
}

/// The answer a ``LoopbackHTTPServer`` handler gives, including misbehaviours to test against.
public struct TestHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers. Unless they contain `Content-Length` or `Transfer-Encoding`, or ``chunked``
    /// is set, the server adds `Content-Length` for the full body (``body`` × ``repeatBody``).
    public var headers: [(name: String, value: String)]
    /// The body (sent ``repeatBody`` times).
    public var body: [UInt8]
    /// How long to wait before sending the response head.
    public var delay: Duration?
    /// How long to wait after sending the head, before sending the body.
    public var bodyDelay: Duration?
    /// If set, the server sends only this many body bytes and then closes the connection,
    /// while the head still advertises the full length.
    public var truncateAfter: Int?
    /// Send the body with chunked transfer encoding (no `Content-Length`).
    public var chunked: Bool
    /// How many times ``body`` is sent back to back, as separate writes. Large values make a
    /// huge (streamed, never materialised) response; the server stops writing when the client
    /// goes away.
    public var repeatBody: Int

    /// Creates a response.
    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        delay: Duration? = nil,
        bodyDelay: Duration? = nil,
        truncateAfter: Int? = nil,
        chunked: Bool = false,
        repeatBody: Int = 1
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.bodyDelay = bodyDelay
        self.truncateAfter = truncateAfter
        self.chunked = chunked
        self.repeatBody = repeatBody
    }

    /// A JSON response (`Content-Type: application/json`).
    public static func json(
        _ json: String,
        status: Int = 200,
        headers: [(name: String, value: String)] = []
    ) -> TestHTTPResponse {
        TestHTTPResponse(
            status: status,
            headers: [(name: "Content-Type", value: "application/json")] + headers,
            body: Array(json.utf8)
        )
    }

    /// A plain-text response (`Content-Type: text/plain; charset=utf-8`).
    public static func text(
        _ text: String,
        status: Int = 200,
        headers: [(name: String, value: String)] = []
    ) -> TestHTTPResponse {
        TestHTTPResponse(
            status: status,
            headers: [(name: "Content-Type", value: "text/plain; charset=utf-8")] + headers,
            body: Array(text.utf8)
        )
    }

    /// A response with this status, the given headers and an empty body.
    public static func status(_ status: Int, headers: [(name: String, value: String)] = []) -> TestHTTPResponse {
        TestHTTPResponse(status: status, headers: headers)
    }

    /// A redirect (`302 Found` unless given) to `location`.
    public static func redirect(to location: String, status: Int = 302) -> TestHTTPResponse {
        TestHTTPResponse(status: status, headers: [(name: "Location", value: location)])
    }
}

/// A real HTTP/1.1 server on SwiftNIO for tests, listening on `127.0.0.1` on an ephemeral port.
///
/// Every connection is served by its own task, so a slow response on one connection never
/// delays another; keep-alive is supported. Stop the server with ``stop()``.
///
/// ```swift
/// let server = try await LoopbackHTTPServer.start { request in .json(#"{"ok":true}"#) }
/// defer { Task { try await server.stop() } }
/// ```
public final class LoopbackHTTPServer: Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The port the server listens on.
    public let port: Int
    private let recorder: Recorder
    private let task: Task<Void, Never>

    /// The base URL, `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The total number of requests received so far (counted when a request has been read
    /// completely, before the handler runs).
    public var requestCount: Int { recorder.state.withLock { $0.total } }

    /// The number of requests received so far for this path (without query string).
    public func requestCount(path: String) -> Int {
        recorder.state.withLock { $0.perPath[path, default: 0] }
    }

    /// All requests received so far, in the order they were read.
    public var receivedRequests: [TestHTTPRequest] { recorder.state.withLock { $0.requests } }

    private init(port: Int, recorder: Recorder, task: Task<Void, Never>) {
        self.port = port
        self.recorder = recorder
        self.task = task
    }

    /// Starts a server that answers every request with `handler`.
    public static func start(
        handler: @escaping @Sendable (TestHTTPRequest) async -> TestHTTPResponse
    ) async throws -> LoopbackHTTPServer {
        let serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = serverChannel.channel.localAddress?.port else {
            try? await serverChannel.channel.close()
            throw LoopbackHTTPServerError.noPort
        }

        let recorder = Recorder()
        let task = Task<Void, Never> {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await serverChannel.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            await serve(connection, handler: handler, recorder: recorder)
                        }
                    }
                }
            }
        }
        return LoopbackHTTPServer(port: port, recorder: recorder, task: task)
    }

    /// Stops accepting connections, closes all open connections and waits until every
    /// connection task has finished.
    public func stop() async throws {
        task.cancel()
        await task.value
    }

    // MARK: - Implementation

    /// Serves one connection: reads requests one after another and answers each.
    private static func serve(
        _ connection: Connection,
        handler: @escaping @Sendable (TestHTTPRequest) async -> TestHTTPResponse,
        recorder: Recorder
    ) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        head = requestHead
                        body.clear()
                    case .body(var chunk):
                        body.writeBuffer(&chunk)
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let request = TestHTTPRequest(
                            method: requestHead.method.rawValue,
                            uri: requestHead.uri,
                            headers: requestHead.headers.map { (name: $0.name, value: $0.value) },
                            body: Array(body.readableBytesView)
                        )
                        recorder.record(request)
                        let response = await handler(request)
                        let keepGoing = try await write(
                            response,
                            to: outbound,
                            version: requestHead.version,
                            keepAlive: requestHead.isKeepAlive,
                            isHead: requestHead.method == .HEAD
                        )
                        if !keepGoing { return }
                    }
                }
            }
        } catch {
            // The client went away, the server is stopping, or the response was cut on purpose.
        }
    }

    /// Writes one response. Returns whether the connection may serve another request.
    private static func write(
        _ response: TestHTTPResponse,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        version: HTTPVersion,
        keepAlive: Bool,
        isHead: Bool
    ) async throws -> Bool {
        if let delay = response.delay {
            try await Task.sleep(for: delay)
        }

        let repeats = max(0, response.repeatBody)
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        let hasFraming = headers.contains(name: "Content-Length") || headers.contains(name: "Transfer-Encoding")
        if !hasFraming {
            if response.chunked {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.add(name: "Content-Length", value: String(response.body.count * repeats))
            }
        }
        let closeAfter = !keepAlive || response.truncateAfter != nil
        if closeAfter {
            headers.replaceOrAdd(name: "Connection", value: "close")
        }

        let head = HTTPResponseHead(
            version: version,
            status: HTTPResponseStatus(statusCode: response.status),
            headers: headers
        )
        try await outbound.write(.head(head))

        if let bodyDelay = response.bodyDelay {
            try await Task.sleep(for: bodyDelay)
        }

        if !isHead {
            let chunk = ByteBuffer(bytes: response.body)
            var remaining = response.truncateAfter ?? Int.max
            var sent = 0
            while sent < repeats && remaining > 0 && chunk.readableBytes > 0 {
                sent += 1
                try Task.checkCancellation()
                let piece = chunk.getSlice(at: chunk.readerIndex, length: min(remaining, chunk.readableBytes)) ?? chunk
                remaining -= piece.readableBytes
                try await outbound.write(.body(.byteBuffer(piece)))
            }
        }

        if response.truncateAfter != nil {
            // Close without the end of the message: the body is shorter than advertised.
            return false
        }
        try await outbound.write(.end(nil))
        return !closeAfter
    }
}

/// Errors ``LoopbackHTTPServer`` throws.
public enum LoopbackHTTPServerError: Error, Sendable {
    /// The listening socket has no port (cannot normally happen).
    case noPort
}

/// The request statistics, shared by the server object and its connection tasks.
private final class Recorder: Sendable {
    struct State {
        var total = 0
        var perPath: [String: Int] = [:]
        var requests: [TestHTTPRequest] = []
    }

    let state = Mutex(State())

    func record(_ request: TestHTTPRequest) {
        state.withLock {
            $0.total += 1
            $0.perPath[request.path, default: 0] += 1
            $0.requests.append(request)
        }
    }
}
