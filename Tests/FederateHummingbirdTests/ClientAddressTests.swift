import Federate
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import FederateServer

/// Who a request comes from, for the guest route's rate limit: addresses read by the
/// project's one parser (`IPAddress`), so spellings of one address are one client; headers
/// believed only from a trusted proxy; keys are bytes.
@Suite("Client addresses for rate limits")
struct ClientAddressTests {
    static func key(_ peer: String?, forwardedFor: [String] = [], proxies: [String] = []) -> [UInt8] {
        var headers = HTTPFields()
        for value in forwardedFor { headers.append(HTTPField(name: ClientAddress.forwardedFor, value: value)) }
        let request = ServerRequest(method: .post, path: "/auth/guest", headers: headers, clientAddress: peer)
        return ClientAddress.key(of: request, trustedProxies: ClientAddress.proxies(proxies, logger: Logger(label: "test")))
    }

    @Test func oneAddressInEverySpellingIsOneClient() {
        #expect(Self.key("198.51.100.7") == [198, 51, 100, 7])
        #expect(Self.key("::ffff:198.51.100.7") == [198, 51, 100, 7], "an IPv4 client of a dual-stack socket")
        #expect(Self.key("2001:db8:1:2::1") == Self.key("2001:0db8:0001:0002:ffff::9"), "one /64")
        #expect(Self.key("2001:db8:1:2::1") != Self.key("2001:db8:1:3::1"))
        #expect(Self.key(nil) == [] && Self.key("not an address") == [])
    }

    @Test func forwardingHeadersAreBelievedOnlyFromATrustedProxy() {
        let spoofed = ["203.0.113.9"]
        #expect(Self.key("198.51.100.7", forwardedFor: spoofed) == [198, 51, 100, 7], "not a proxy: the header is ignored")
        // Trusted, in any spelling: the last address that is not a proxy.
        #expect(Self.key("10.0.0.2", forwardedFor: ["203.0.113.9, 10.0.0.3"], proxies: ["10.0.0.2", "10.0.0.3"]) == [203, 0, 113, 9])
        #expect(Self.key("10.0.0.2", forwardedFor: ["203.0.113.9"], proxies: ["10.2"]) == [203, 0, 113, 9])
        // An entry that is no address counts as the proxy that passed it on, never as a key of the client's choosing.
        #expect(Self.key("10.0.0.2", forwardedFor: ["random-\(UUID())"], proxies: ["10.0.0.2"]) == [10, 0, 0, 2])
        // A configured entry that is no address is ignored: the header is not believed.
        #expect(Self.key("10.0.0.2", forwardedFor: ["203.0.113.9"], proxies: ["proxy.internal"]) == [10, 0, 0, 2])
    }

    /// The bucket: `burst` at once, then one per `interval`; a `Retry-After` that never traps,
    /// whatever the configured bounds.
    @Test func theBucketAndItsRetryAfter() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let limiter = ClientRateLimiter(RateLimit(burst: 2, interval: .seconds(60)))
        #expect(limiter.acquire([1], now: start) == nil && limiter.acquire([1], now: start) == nil)
        #expect(limiter.acquire([1], now: start) == .seconds(60))
        #expect(limiter.acquire([2], now: start) == nil, "another client has its own bucket")
        #expect(limiter.acquire([1], now: start.addingTimeInterval(30)) == .seconds(30))
        #expect(limiter.acquire([1], now: start.addingTimeInterval(61)) == nil)
        for limit in [RateLimit(burst: 0, interval: .seconds(Int64.max)), RateLimit(burst: Int.max, interval: .zero - .seconds(5))] {
            let hostile = ClientRateLimiter(limit)
            for _ in 0..<3 { _ = hostile.acquire([9], now: start) }
            if let wait = hostile.acquire([9], now: start) { #expect(wait >= .seconds(1) && String(wait.wholeSeconds).count <= 13) }
        }
    }
}
