import Federate
import Foundation
import HTTPTypes
import Logging
import Synchronization

/// A token bucket per client (``RateLimit``), in memory: each server instance counts its own
/// clients. At most ``maximumClients`` buckets; when full, the buckets that have refilled
/// (they remember nothing) are dropped, and a new client is refused while none can be.
final class ClientRateLimiter: Sendable {
    /// The most clients tracked at once.
    static let maximumClients = 65_536

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let limit: RateLimit
    /// By the client's bytes (``ClientAddress/key(of:trustedProxies:)``), never a `String`.
    private let buckets = Mutex<[[UInt8]: Bucket]>([:])

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    /// Takes one from `client`'s bucket at `now`: `nil` when allowed, else how long until it
    /// would be (for `Retry-After`), at least a second.
    func acquire(_ client: [UInt8], now: Date) -> Duration? {
        let burst = Double(max(0, limit.burst))
        let interval: Double = max(limit.interval.inSeconds, 0.001)
        return buckets.withLock { (buckets: inout [[UInt8]: Bucket]) -> Duration? in
            var bucket = Self.refilled(buckets[client], burst: burst, interval: interval, now: now)
            guard bucket.tokens >= 1 else {
                if buckets[client] != nil { buckets[client] = bucket }
                return Self.retryAfter((1 - bucket.tokens) * interval)
            }
            if buckets[client] == nil, buckets.count >= Self.maximumClients {
                // Forget the clients whose buckets are full again: they remember nothing.
                buckets = buckets.filter { (entry: (key: [UInt8], value: Bucket)) -> Bool in
                    Self.refilled(entry.value, burst: burst, interval: interval, now: now).tokens < burst
                }
                guard buckets.count < Self.maximumClients else { return Self.retryAfter(interval) }
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return nil
        }
    }

    /// `seconds` rounded up, from 1 second to about 31,700 years: an interval a configuration
    /// makes as long as a `Duration` holds never traps when it becomes `Retry-After`.
    private static func retryAfter(_ seconds: Double) -> Duration {
        .seconds(min(max(1, seconds.rounded(.up)), 1e12))
    }

    /// `bucket` (a full one when `nil`) refilled for the time elapsed until `now`.
    private static func refilled(_ bucket: Bucket?, burst: Double, interval: Double, now: Date) -> Bucket {
        guard let bucket else { return Bucket(tokens: burst, updated: now) }
        let elapsed: Double = max(0, now.timeIntervalSince(bucket.updated))
        return Bucket(tokens: min(burst, bucket.tokens + elapsed / interval), updated: now)
    }
}

/// Who a request comes from, for rate limits, as bytes: the connection's peer address, or,
/// when that peer is one of the trusted proxies, the last address of `X-Forwarded-For` that is
/// not one (what a client writes into that header itself is never believed; an entry that is
/// no address counts as the proxy that passed it on). Addresses are read by `IPAddress`, so
/// every spelling of one is that address and an IPv4 client of a dual-stack socket is its IPv4
/// address; an IPv6 client counts by its /64 network. A request whose integration does not
/// know the peer counts as one client, the empty key.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For") ?? .accept

    static func key(of request: ServerRequest, trustedProxies: Set<IPAddress>) -> [UInt8] {
        guard let peer = request.clientAddress.flatMap(IPAddress.init(host:)) else { return [] }
        var client = unmapped(peer)
        if trustedProxies.contains(client) {
            var chain: [IPAddress?] = []
            for header in request.headers[values: forwardedFor] {
                for entry in header.split(separator: ",") {
                    chain.append(IPAddress(host: entry.trimmingCharacters(in: .whitespaces)).map(unmapped))
                }
            }
            for entry in chain.reversed() {
                guard let address = entry else { break }
                if !trustedProxies.contains(address) {
                    client = address
                    break
                }
            }
        }
        return client.bytes.count == 16 ? Array(client.bytes.prefix(8)) : client.bytes
    }

    /// The trusted proxies of the configuration, as addresses; an entry that is none is ignored
    /// (its header is then never believed) and logged.
    static func proxies(_ entries: [String], logger: Logger) -> Set<IPAddress> {
        var proxies = Set<IPAddress>()
        for entry in entries {
            guard let address = IPAddress(host: entry) else {
                logger.warning("a trusted proxy that is not an IP address is ignored", metadata: ["entry": "\(entry.prefix(64))"])
                continue
            }
            proxies.insert(unmapped(address))
        }
        return proxies
    }

    /// `address`, or the IPv4 address it carries.
    private static func unmapped(_ address: IPAddress) -> IPAddress { address.embeddedIPv4 ?? address }
}
