public import FederateTokens
public import FederateRelyingParty
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
///
/// Once told the flow's `state` (``expect(state:)``), it ignores a callback with another
/// state or none — a page of another site cannot end the sign-in by hitting the port — and
/// keeps waiting for the right one. A malformed callback (a duplicated `code`, a bad escape)
/// whose `state` parameter appears exactly once and is the flow's own ends the wait at once
/// with its typed error (`invalid_callback`): the provider answered this flow, badly.
///
/// Started with `answerAfterFinish`, it holds the browser's page until the app calls
/// ``finish(succeeded:)``, so the page says the sign-in finished only once the code exchange
/// has succeeded.
public final class LoopbackRedirectListener: RedirectReceiver {
    private typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public let redirectURI: String
    /// The port bound.
    package let port: Int
    private let results: AsyncStream<Result<AuthorizationResponse, FederateError>>
    private let acceptTask: Task<Void, Never>
    private let delivery: CallbackDelivery

    private init(
        redirectURI: String, port: Int, results: AsyncStream<Result<AuthorizationResponse, FederateError>>, acceptTask: Task<Void, Never>,
        delivery: CallbackDelivery
    ) {
        self.redirectURI = redirectURI
        self.port = port
        self.results = results
        self.acceptTask = acceptTask
        self.delivery = delivery
    }

    /// The page shown when the sign-in failed after the callback (``finish(succeeded:)``).
    static let failurePage = """
        <!doctype html><html><head><meta charset="utf-8"><title>Sign-in failed</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>The sign-in did not finish</h1>
        <p>Return to the application to see why.</p></body></html>
        """

    /// The page for a callback that is not the one this app is waiting for.
    static let ignoredPage = """
        <!doctype html><html><head><meta charset="utf-8"><title>Ignored</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>This is not the sign-in the application started</h1>
        <p>It was ignored. Finish the sign-in you started from the application.</p></body></html>
        """

    /// The page shown in the browser after the redirect.
    @usableFromInline static let defaultPage = """
        <!doctype html><html><head><meta charset="utf-8"><title>Signed in</title></head>
        <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>You can close this window</h1>
        <p>The sign-in finished. Return to the application.</p></body></html>
        """

    /// Binds the listener. `host` must be a loopback literal (`127.0.0.1` or `::1`);
    /// port 0 picks a free port.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, path: String = "/callback", page: String = defaultPage, answerAfterFinish: Bool = false
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
        let delivery = CallbackDelivery(continuation: continuation, answerAfterFinish: answerAfterFinish)
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
            redirectURI: "http://\(hostInURI):\(boundPort)\(path)", port: boundPort, results: stream, acceptTask: acceptTask,
            delivery: delivery)
    }

    /// From now on, only a callback carrying exactly this `state` (compared in constant time)
    /// is taken; any other is answered with a page saying it was ignored.
    public func expect(state: String) {
        delivery.expectedState.withLock { $0 = state }
    }

    /// With `answerAfterFinish`: answers the browser — the success page, or
    /// a failure page — and returns once the page is written (or after 5 seconds).
    public func finish(succeeded: Bool) async {
        await delivery.finish(page: succeeded ? nil : Self.failurePage)
        acceptTask.cancel()
    }

    /// Waits for the one callback, then stops listening. Throws
    /// `FederateError/Code/callbackTimeout` when `timeout` passes first.
    public func waitForCallback(timeout: Duration = .seconds(300)) async throws(FederateError) -> AuthorizationResponse {
        // With `answerAfterFinish` the browser's connection stays open until ``finish(succeeded:)``.
        defer { if !delivery.answerAfterFinish { acceptTask.cancel() } }
        let results = self.results
        let first = await withTaskGroup(of: Result<AuthorizationResponse, FederateError>?.self) { group in
            group.addTask {
                for await result in results { return result }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        guard let first else {
            if Task.isCancelled { throw FederateError(.cancelled, "the wait for the redirect was cancelled") }
            throw FederateError(.callbackTimeout, "no redirect arrived within \(timeout)")
        }
        return try first.get()
    }

    /// Stops listening without waiting.
    public func close() {
        acceptTask.cancel()
    }

    private static func serve(
        _ connection: Connection, path: String, page: String,
        delivery: CallbackDelivery
    ) async {
        let answeredAfterFinish = try? await connection.executeThenClose { inbound, outbound -> Bool in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    head = requestHead
                    body.clear()
                case .body(var chunk):
                    guard body.readableBytes + chunk.readableBytes <= 64 * 1024 else { return false }
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
                    let raw = request.method == .POST ? String(validating: Array(body.readableBytesView), as: UTF8.self) ?? "" : query
                    do throws(FederateError) {
                        result = .success(
                            request.method == .POST
                                ? try AuthorizationResponse(formBody: Array(body.readableBytesView))
                                : try AuthorizationResponse(query: query))
                    } catch {
                        result = .failure(error)
                    }
                    guard delivery.isExpected(result, rawParameters: raw) else {
                        // Not this flow's state: ignored, and the listener keeps waiting.
                        try? await respond(outbound, status: .badRequest, html: ignoredPage)
                        return false
                    }
                    let accepted = delivery.claim()
                    guard accepted else {
                        try? await respond(outbound, status: .gone, html: "<!doctype html><p>This sign-in already finished.</p>")
                        return false
                    }
                    if delivery.answerAfterFinish {
                        // The app exchanges the code first; the page then says how it went.
                        delivery.deliver(result)
                        let outcome = await delivery.outcomePage(default: page)
                        try? await respond(outbound, status: .ok, html: outcome)
                    } else {
                        // Answer the browser, then hand the result over: the waiting caller stops
                        // the listener (and a CLI may exit) as soon as it has it, which must not
                        // cut the page off mid-write.
                        try? await respond(outbound, status: .ok, html: page)
                        delivery.deliver(result)
                    }
                    return delivery.answerAfterFinish
                }
            }
            return false
        }
        // Signalled once the connection is closed, its page flushed: the app may exit then.
        if answeredAfterFinish == true { delivery.pageWritten() }
    }

    private static func split(_ uri: String) -> (path: String, query: String) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, "") }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    private static func respond(
        _ outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, status: HTTPResponseStatus, html: String
    ) async throws {
        let headers: HTTPHeaders = [
            "Content-Type": "text/html; charset=utf-8", "Content-Length": String(html.utf8.count), "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer", "Connection": "close",
        ]
        try await outbound.write(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(string: html))))
        try await outbound.write(.end(nil))
    }
}

/// Hands the first callback result of the expected flow to the waiting caller; later ones
/// are refused. With `answerAfterFinish`, it also carries the app's outcome back to the page.
private final class CallbackDelivery: Sendable {
    private let claimed = Mutex(false)
    private let continuation: AsyncStream<Result<AuthorizationResponse, FederateError>>.Continuation
    let answerAfterFinish: Bool
    /// The state of the flow being waited for, once the app said it.
    let expectedState = Mutex<String?>(nil)
    private let outcomes = AsyncStream<String?>.makeStream()
    private let written = AsyncStream<Void>.makeStream()

    init(continuation: AsyncStream<Result<AuthorizationResponse, FederateError>>.Continuation, answerAfterFinish: Bool) {
        self.continuation = continuation
        self.answerAfterFinish = answerAfterFinish
    }

    /// Whether `result` belongs to the flow being waited for: any, until a state is expected;
    /// then only a response whose `state` equals it. A malformed callback (`rawParameters`
    /// could not be parsed) belongs to the flow when its `state` appears exactly once and
    /// equals it: then its error ends the flow.
    func isExpected(_ result: Result<AuthorizationResponse, FederateError>, rawParameters: String) -> Bool {
        guard let expected = expectedState.withLock({ $0 }) else { return true }
        switch result {
        case .success(let response):
            guard let state = response.parameters["state"] else { return false }
            return ConstantTime.equals(state, expected)
        case .failure:
            let states = FormURLEncoding.values(of: "state", in: rawParameters)
            guard states.count == 1, let state = states.first else { return false }
            return ConstantTime.equals(state, expected)
        }
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

    /// The page the app chose (`nil`: the success page), or a neutral one after two minutes.
    func outcomePage(default success: String) async -> String {
        let outcomes = self.outcomes.stream
        let chosen = await withTaskGroup(of: String??.self) { group in
            group.addTask {
                for await page in outcomes { return .some(page) }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(120))
                return .some(Self.undecidedPage)
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        return (chosen ?? nil) ?? success
    }

    /// When the app never says how the sign-in went.
    static let undecidedPage = "<!doctype html><p>Return to the application.</p>"

    /// Records that the page was written.
    func pageWritten() {
        written.continuation.yield()
        written.continuation.finish()
    }

    /// Sends the outcome to the page and waits (at most 5 seconds) until it is written.
    func finish(page: String?) async {
        outcomes.continuation.yield(page)
        outcomes.continuation.finish()
        let written = self.written.stream
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in written { return } }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }
}
