import Foundation
import HTTPTypes
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
    private let buckets = Mutex<[String: Bucket]>([:])

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    /// Takes one from `client`'s bucket at `now`: `nil` when allowed, else how long until it
    /// would be (for `Retry-After`), at least a second.
    func acquire(_ client: String, now: Date) -> Duration? {
        let burst = Double(max(0, limit.burst))
        let interval: Double = max(limit.interval.inSeconds, 0.001)
        return buckets.withLock { (buckets: inout [String: Bucket]) -> Duration? in
            var bucket = Self.refilled(buckets[client], burst: burst, interval: interval, now: now)
            guard bucket.tokens >= 1 else {
                if buckets[client] != nil { buckets[client] = bucket }
                let wait: Double = ((1 - bucket.tokens) * interval).rounded(.up)
                return Duration.seconds(max(1, wait))
            }
            if buckets[client] == nil, buckets.count >= Self.maximumClients {
                // Forget the clients whose buckets are full again: they remember nothing.
                buckets = buckets.filter { (entry: (key: String, value: Bucket)) -> Bool in
                    Self.refilled(entry.value, burst: burst, interval: interval, now: now).tokens < burst
                }
                guard buckets.count < Self.maximumClients else { return Duration.seconds(max(1, interval.rounded(.up))) }
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return nil
        }
    }

    /// `bucket` (a full one when `nil`) refilled for the time elapsed until `now`.
    private static func refilled(_ bucket: Bucket?, burst: Double, interval: Double, now: Date) -> Bucket {
        guard let bucket else { return Bucket(tokens: burst, updated: now) }
        let elapsed: Double = max(0, now.timeIntervalSince(bucket.updated))
        return Bucket(tokens: min(burst, bucket.tokens + elapsed / interval), updated: now)
    }
}

/// Who a request comes from, for rate limits: the connection's peer address, or, when that
/// peer is one of the configuration's trusted proxies, the last address of `X-Forwarded-For`
/// that is not one (what a client writes into that header itself is never believed). IPv6
/// clients count by /64 network.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For") ?? .accept

    static func key(of request: ServerRequest, trustedProxies: [String]) -> String {
        guard let peer = request.clientAddress else { return "unknown" }
        var address = normalized(peer)
        if trustedProxies.contains(address) {
            var chain: [String] = []
            for header in request.headers[values: forwardedFor] {
                for entry in header.split(separator: ",") {
                    chain.append(normalized(entry.trimmingCharacters(in: .whitespaces)))
                }
            }
            if let client = chain.last(where: { !trustedProxies.contains($0) }) { address = client }
        }
        return network(of: address)
    }

    /// An address as written by `inet_ntop` (so `::1` and `0:0::1` are one; `::ffff:a.b.c.d` is `a.b.c.d`).
    static func normalized(_ address: String) -> String {
        var v6 = in6_addr()
        var v4 = in_addr()
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if inet_pton(AF_INET, address, &v4) == 1, inet_ntop(AF_INET, &v4, &text, socklen_t(text.count)) != nil {
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        if inet_pton(AF_INET6, address, &v6) == 1, inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count)) != nil {
            let written = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // An IPv4 client of a dual-stack socket is that IPv4 address.
            if written.hasPrefix("::ffff:"), written.contains(".") { return String(written.dropFirst(7)) }
            return written
        }
        return address
    }

    /// An IPv4 address itself; an IPv6 address's /64 network (`v6:` and its first 8 bytes in hex).
    static func network(of address: String) -> String {
        var v6 = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: &v6) { Array($0.prefix(8)) }
        return "v6:" + bytes.map { String($0, radix: 16) }.joined(separator: ".")
    }
}
