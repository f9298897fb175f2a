import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A one-shot HTTP listener on a loopback address that receives the authorization
/// response for a native or command-line app (RFC 8252 §7.3).
///
/// It binds `127.0.0.1` (or `::1`) on a free port, accepts exactly one request on the
/// callback path (query or `form_post`), answers it with a small page telling the user to
/// return to the app, answers 404 to anything else (such as `/favicon.ico`), and stops.
public final class LoopbackRedirectListener: Sendable {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public let redirectURI: String
    /// The port bound.
    public let port: Int
    private let results: AsyncStream<Result<AuthorizationResponse, FederateError>>
    private let acceptTask: Task<Void, Never>

    private init(redirectURI: String, port: Int, results: AsyncStream<Result<AuthorizationResponse, FederateError>>, acceptTask: Task<Void, Never>) {
        self.redirectURI = redirectURI
        self.port = port
        self.results = results
        self.acceptTask = acceptTask
    }

    /// The page shown in the browser after the redirect.
    public static let defaultPage = """
        <!doctype html><html><head><meta charset="utf-8"><title>Signed in</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>You can close this window</h1>
        <p>The sign-in finished. Return to the application.</p></body></html>
        """

    /// Binds the listener. `host` must be a loopback literal (`127.0.0.1` or `::1`);
    /// port 0 picks a free port.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, path: String = "/callback", page: String = defaultPage
    ) async throws -> LoopbackRedirectListener {
        guard host == "127.0.0.1" || host == "::1" else {
            throw FederateError(.invalidConfiguration, "the redirect listener binds loopback literals only (127.0.0.1 or ::1)")
        }
        guard path.hasPrefix("/") else { throw FederateError(.invalidConfiguration, "the callback path starts with /") }
        let serverChannel: NIOAsyncChannel<Connection, Never>
        do {
            serverChannel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw FederateError(.invalidConfiguration, "cannot listen on \(host):\(port)")
        }
        guard let boundPort = serverChannel.channel.localAddress?.port else {
            try? await serverChannel.channel.close()
            throw FederateError(.invalidConfiguration, "the listener has no port")
        }
        let (stream, continuation) = AsyncStream<Result<AuthorizationResponse, FederateError>>.makeStream()
        let delivery = CallbackDelivery(continuation: continuation)
        let acceptTask = Task<Void, Never> {
            _ = try? await withThrowingDiscardingTaskGroup { group in
                try await serverChannel.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            await serve(connection, path: path, page: page, delivery: delivery)
                        }
                    }
                }
            }
        }
        let hostInURI = host.contains(":") ? "[\(host)]" : host
        return LoopbackRedirectListener(
            redirectURI: "http://\(hostInURI):\(boundPort)\(path)", port: boundPort, results: stream, acceptTask: acceptTask)
    }

    /// Waits for the one callback, then stops listening. Throws
    /// ``FederateError/Code/callbackTimeout`` when `timeout` passes first.
    public func waitForCallback(timeout: Duration = .seconds(300)) async throws -> AuthorizationResponse {
        defer { acceptTask.cancel() }
        let results = self.results
        return try await withThrowingTaskGroup(of: Result<AuthorizationResponse, FederateError>?.self) { group in
            group.addTask {
                for await result in results { return result }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw FederateError(.callbackTimeout, "no redirect arrived within \(timeout)")
            }
            return try result.get()
        }
    }

    /// Stops listening without waiting.
    public func close() {
        acceptTask.cancel()
    }

    private static func serve(
        _ connection: Connection, path: String, page: String,
        delivery: CallbackDelivery
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    body.clear()
                case .body(var chunk):
                    guard body.readableBytes + chunk.readableBytes <= 64 * 1024 else { return }
                    body.writeBuffer(&chunk)
                case .end:
                    guard let request = head else { continue }
                    head = nil
                    let (requestPath, query) = split(request.uri)
                    guard requestPath == path, request.method == .GET || request.method == .POST else {
                        try await respond(outbound, status: .notFound, html: "<!doctype html><p>Not found</p>")
                        continue
                    }
                    let result: Result<AuthorizationResponse, FederateError>
                    do throws(FederateError) {
                        result = .success(
                            request.method == .POST
                                ? try AuthorizationResponse(formBody: Array(body.readableBytesView))
                                : try AuthorizationResponse(query: query))
                    } catch {
                        result = .failure(error)
                    }
                    // Claim first, answer the browser, then hand the result over: the waiting
                    // caller stops the listener (and a CLI may exit) as soon as it has it, which
                    // must not cut the page off mid-write.
                    let accepted = delivery.claim()
                    try? await respond(outbound, status: accepted ? .ok : .gone, html: accepted ? page : "<!doctype html><p>This sign-in already finished.</p>")
                    if accepted { delivery.deliver(result) }
                    return
                }
            }
        }
    }

    private static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    private static func respond(_ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, status: HTTPResponseStatus, html: String) async throws {
        let headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8", "Content-Length": String(html.utf8.count), "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer", "Connection": "close",
        ]
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: html))))
        try await outbound.write(.end(nil))
    }
}

/// Hands the first callback result to the waiting caller; later ones are refused.
private final class CallbackDelivery: Sendable {
    private let claimed = Mutex(false)
    private let continuation: AsyncStream<Result<AuthorizationResponse, FederateError>>.Continuation

    init(continuation: AsyncStream<Result<AuthorizationResponse, FederateError>>.Continuation) {
        self.continuation = continuation
    }

    /// Claims the one delivery; returns whether this caller is the first.
    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }

    /// Delivers the result of the request that won ``claim()``.
    func deliver(_ result: Result<AuthorizationResponse, FederateError>) {
        continuation.yield(result)
        continuation.finish()
    }
}
