import Federate
import FederateTestSupport
import Testing
@testable import FederateRelyingParty

/// Tests of ``AsyncHTTPClientTransport`` against a real HTTP server on the loopback interface.
@Suite("AsyncHTTPClientTransport")
struct AsyncHTTPClientTransportTests {
    let transport = AsyncHTTPClientTransport.shared

    // MARK: - Round trips

    @Test func getRoundTripCarriesHeadersAndBody() async throws {
        try await withServer { request in
            .json(#"{"path":"\#(request.path)"}"#, headers: [(name: "X-Reply", value: "yes")])
        } run: { server in
            let response = try await transport.send(
                HTTPRequest(url: server.baseURL + "/hello?x=1&y=2", headers: [(name: "X-Test", value: "abc")])
            )
            #expect(response.status == 200)
            #expect(response.isSuccess)
            #expect(response.header("x-reply") == "yes")
            #expect(response.header("Content-Type") == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"path":"/hello"}"#)

            let received = try #require(server.receivedRequests.first)
            #expect(server.requestCount == 1)
            #expect(received.method == "GET")
            #expect(received.path == "/hello")
            #expect(received.query == "x=1&y=2")
            #expect(received.header("X-Test") == "abc")
            #expect(received.body.isEmpty)
        }
    }

    @Test func postRoundTripCarriesHeadersAndBody() async throws {
        let payload = Array("grant_type=authorization_code&code=xyz".utf8)
        try await withServer { request in
            TestHTTPResponse(
                status: 201,
                headers: [(name: "X-Echo-Length", value: String(request.body.count))],
                body: request.body.reversed()
            )
        } run: { server in
            let response = try await transport.send(
                HTTPRequest(
                    method: "POST",
                    url: server.baseURL + "/token",
                    headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                    body: payload
                )
            )
            #expect(response.status == 201)
            #expect(response.header("X-Echo-Length") == String(payload.count))
            #expect(response.body == payload.reversed())

            let received = try #require(server.receivedRequests.first)
            #expect(received.method == "POST")
            #expect(received.path == "/token")
            #expect(received.body == payload)
            #expect(received.header("content-type") == "application/x-www-form-urlencoded")
            #expect(received.header("Content-Length") == String(payload.count))
        }
    }

    @Test func nonSuccessStatusIsReturnedNotThrown() async throws {
        try await withServer { _ in
            .json(#"{"error":"invalid_grant"}"#, status: 400)
        } run: { server in
            let response = try await transport.send(HTTPRequest(url: server.baseURL + "/token"))
            #expect(response.status == 400)
            #expect(!response.isSuccess)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"invalid_grant"}"#)
        }
    }

    // MARK: - User-Agent

    @Test func userAgentIsSetByDefault() async throws {
        try await withServer { _ in
            .status(204)
        } run: { server in
            _ = try await transport.send(HTTPRequest(url: server.baseURL + "/"))
            let received = try #require(server.receivedRequests.first)
            #expect(received.headerValues("User-Agent") == ["Federate/0.2.0 (+https://github.com/federate-swift/federate)"])
            #expect(AsyncHTTPClientTransport.defaultUserAgent.hasPrefix("Federate/\(FederateVersion.string) "))
        }
    }

    @Test func callerUserAgentIsNotOverridden() async throws {
        try await withServer { _ in
            .status(204)
        } run: { server in
            _ = try await transport.send(
                HTTPRequest(url: server.baseURL + "/", headers: [(name: "user-agent", value: "my-app/2.0")])
            )
            let received = try #require(server.receivedRequests.first)
            #expect(received.headerValues("User-Agent") == ["my-app/2.0"])
        }
    }

    // MARK: - Redirects

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectIsReturnedNotFollowed(status: Int) async throws {
        try await withServer { request in
            request.path == "/start" ? .redirect(to: "/target", status: status) : .text("target")
        } run: { server in
            let response = try await transport.send(HTTPRequest(url: server.baseURL + "/start"))
            #expect(response.status == status)
            #expect(response.header("Location") == "/target")
            #expect(response.body.isEmpty)
            #expect(server.requestCount(path: "/start") == 1)
            #expect(server.requestCount(path: "/target") == 0)
        }
    }

    @Test func redirectIsFollowedOnlyWhenRequested() async throws {
        try await withServer { request in
            request.path == "/start" ? .redirect(to: "/target") : .text("target")
        } run: { server in
            let response = try await transport.send(
                HTTPRequest(url: server.baseURL + "/start", followRedirects: true)
            )
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "target")
            #expect(server.requestCount(path: "/target") == 1)
        }
    }

    @Test func redirectCycleFails() async throws {
        try await withServer { _ in
            .redirect(to: "/loop")
        } run: { server in
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/loop", followRedirects: true))
            }
            #expect(error?.code == .httpFailed)
            #expect(server.requestCount(path: "/loop") <= 6)
        }
    }

    // MARK: - Size limit

    @Test(arguments: [false, true])
    func bodyExactlyAtLimitIsAccepted(chunked: Bool) async throws {
        let body = [UInt8](repeating: 0x61, count: 1000)
        try await withServer { _ in
            TestHTTPResponse(body: Array(body[..<250]), chunked: chunked, repeatBody: 4)
        } run: { server in
            let response = try await transport.send(
                HTTPRequest(url: server.baseURL + "/", maxResponseBytes: 1000)
            )
            #expect(response.body == body)
        }
    }

    @Test func bodyOverLimitWithContentLengthIsRejected() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 1001))
        } run: { server in
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/", maxResponseBytes: 1000))
            }
            #expect(error?.code == .responseTooLarge)
        }
    }

    /// The head announces too much; the body is held back longer than the timeout, so only an
    /// up-front check of `Content-Length` can answer `responseTooLarge` (and quickly).
    @Test func oversizedContentLengthIsRejectedBeforeReadingBody() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 5000), bodyDelay: .seconds(60))
        } run: { server in
            let start = ContinuousClock.now
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(
                    HTTPRequest(url: server.baseURL + "/", timeout: .seconds(45), maxResponseBytes: 1000)
                )
            }
            #expect(error?.code == .responseTooLarge)
            // Well under both the timeout (8 s) and the body delay (10 s), with room for a loaded CI machine.
            #expect(ContinuousClock.now - start < .seconds(30))  // the body would take 60 s, the timeout 45 s
        }
    }

    @Test func chunkedBodyOverLimitIsRejected() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 300), chunked: true, repeatBody: 4)
        } run: { server in
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/", maxResponseBytes: 1000))
            }
            #expect(error?.code == .responseTooLarge)
        }
    }

    /// A practically endless chunked body (64 GiB): the transport must stop reading once the
    /// limit is passed rather than buffer the body (which would end in a timeout or worse).
    @Test func endlessChunkedBodyIsAbandonedAtLimit() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 64 * 1024), chunked: true, repeatBody: 1 << 20)
        } run: { server in
            let start = ContinuousClock.now
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(
                    HTTPRequest(url: server.baseURL + "/", timeout: .seconds(60), maxResponseBytes: 256 * 1024)
                )
            }
            #expect(error?.code == .responseTooLarge)
            // Well inside the 60 s timeout; the margin is for a loaded 2-core machine.
            #expect(ContinuousClock.now - start < .seconds(30))
        }
    }

    // MARK: - Timeouts

    @Test func delayedResponseTimesOut() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: Array("late".utf8), delay: .seconds(60))
        } run: { server in
            let start = ContinuousClock.now
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/slow", timeout: .seconds(1)))
            }
            let elapsed = ContinuousClock.now - start
            #expect(error?.code == .httpTimeout)
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(30))  // the server would answer after 60 s
        }
    }

    /// The head arrives at once but the body stalls: the timeout covers the whole exchange.
    @Test func stalledBodyTimesOut() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: Array("late".utf8), bodyDelay: .seconds(60))
        } run: { server in
            let start = ContinuousClock.now
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/stall", timeout: .seconds(1)))
            }
            #expect(error?.code == .httpTimeout)
            #expect(ContinuousClock.now - start < .seconds(30))  // the body would arrive after 60 s
        }
    }

    // MARK: - Transport failures

    @Test func connectionRefusedFails() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let url = closedPortURL(refusing) + "/"
        let start = ContinuousClock.now
        let error = await #expect(throws: FederateError.self) {
            try await transport.send(HTTPRequest(url: url, timeout: .seconds(45)))
        }
        #expect(error?.code == .httpFailed)
        #expect(ContinuousClock.now - start < .seconds(30))  // refused at once; the timeout is 45 s
    }

    @Test func truncatedBodyFails() async throws {
        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 1000), truncateAfter: 10)
        } run: { server in
            // Not a timeout test: 60 s, so a server task that a loaded 2-core machine holds back
            // cannot turn the truncation into http_timeout (once: 14 s, in a full parallel run).
            let error = await #expect(throws: FederateError.self) {
                try await transport.send(HTTPRequest(url: server.baseURL + "/", timeout: .seconds(60)))
            }
            #expect(error?.code == .httpFailed)
        }
    }

    @Test func nonHTTPURLIsRejected() async throws {
        let error = await #expect(throws: FederateError.self) {
            try await transport.send(HTTPRequest(url: "ftp://127.0.0.1/file"))
        }
        #expect(error?.code == .invalidURL)
    }

    @Test func errorMessagesContainNoSecrets() async throws {
        let secret = "s3cr3t"
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        func request(_ base: String) -> HTTPRequest {
            HTTPRequest(
                method: "POST",
                url: base.replacing("http://", with: "http://user:pw-\(secret)@", maxReplacements: 1) + "/token?code=\(secret)",
                headers: [(name: "Authorization", value: "Bearer token-\(secret)")],
                body: Array("client_secret=\(secret)".utf8),
                timeout: .seconds(5)
            )
        }

        let refused = await #expect(throws: FederateError.self) {
            try await transport.send(request(closedPortURL(refusing)))
        }
        #expect(refused?.code == .httpFailed)
        #expect(refused.map { !"\($0)".contains(secret) } == true)

        try await withServer { _ in
            TestHTTPResponse(body: [UInt8](repeating: 0x61, count: 1000), truncateAfter: 10)
        } run: { server in
            let truncated = await #expect(throws: FederateError.self) {
                try await transport.send(request(server.baseURL))
            }
            #expect(truncated.map { !"\($0)".contains(secret) } == true)
        }
    }

    // MARK: - Cancellation and concurrency

    @Test func cancellationPropagates() async throws {
        try await withServer { _ in
            TestHTTPResponse(delay: .seconds(60))
        } run: { server in
            let task = Task {
                try await transport.send(HTTPRequest(url: server.baseURL + "/slow", timeout: .seconds(90)))
            }
            try await waitUntil { server.requestCount(path: "/slow") == 1 }
            let start = ContinuousClock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(ContinuousClock.now - start < .seconds(30))  // the server would answer after 60 s
        }
    }

    @Test func slowResponseDoesNotBlockOtherConnections() async throws {
        try await withServer { request in
            request.path == "/slow" ? TestHTTPResponse(delay: .seconds(60)) : .text("fast")
        } run: { server in
            let slow = Task {
                try await transport.send(HTTPRequest(url: server.baseURL + "/slow", timeout: .seconds(90)))
            }
            defer { slow.cancel() }
            try await waitUntil { server.requestCount(path: "/slow") == 1 }

            let start = ContinuousClock.now
            let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await transport.send(HTTPRequest(url: server.baseURL + "/fast", timeout: .seconds(30)))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.count == 8)
            #expect(responses.allSatisfy { $0.status == 200 })
            #expect(ContinuousClock.now - start < .seconds(30))  // the slow one takes 60 s
        }
    }
}

// MARK: - Helpers

/// Runs `body` against a fresh server and stops the server afterwards, also on failure.
private func withServer(
    _ handler: @escaping @Sendable (TestHTTPRequest) async -> TestHTTPResponse,
    run body: (LoopbackHTTPServer) async throws -> Void
) async throws {
    let server = try await LoopbackHTTPServer.start(handler: handler)
    do {
        try await body(server)
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

/// The base URL of a loopback port nothing listens on (a server's port after it stopped).
/// The URL of a port that refuses connections while `refusing` lives (see ``RefusingPort``).
private func closedPortURL(_ refusing: RefusingPort) -> String {
    "http://127.0.0.1:\(refusing.port)"
}

/// Polls `condition` every 10 ms for up to 5 seconds.
private func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within 5 seconds")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
