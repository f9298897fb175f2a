import Federate
import Foundation
import Synchronization

/// An `HTTPClient` that passes requests to another and remembers each response with the
/// local times around it, so `federate doctor` can read what the discovery client and the
/// remote key set do not keep: the `Date` header (clock skew), a redirect's `Location`, the
/// raw body of a refused document.
final class RecordingHTTPClient: HTTPClient {
    /// One request and its response.
    struct Exchange: Sendable {
        /// The requested URL.
        let url: String
        /// The response.
        let response: HTTPResponse
        /// Local time when the request was sent.
        let sentAt: Date
        /// Local time when the complete response was in.
        let receivedAt: Date
    }

    private let base: any HTTPClient
    private let timeout: Duration
    private let recorded = Mutex<[Exchange]>([])

    /// Records what `base` answers, each request allowed `timeout`.
    init(base: any HTTPClient, timeout: Duration) {
        self.base = base
        self.timeout = timeout
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.timeout = timeout
        let sentAt = FederateClock.system.now
        let response = try await base.send(request)
        let exchange = Exchange(url: request.url, response: response, sentAt: sentAt, receivedAt: FederateClock.system.now)
        recorded.withLock { $0.append(exchange) }
        return response
    }

    /// Every exchange so far, in order.
    var exchanges: [Exchange] { recorded.withLock { $0 } }

    /// The latest exchange with `url`, if any.
    func latest(for url: String) -> Exchange? {
        recorded.withLock { list in list.last(where: { $0.url == url }) }
    }
}
