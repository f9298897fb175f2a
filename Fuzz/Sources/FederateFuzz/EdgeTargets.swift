import Federate
import Foundation

/// The checks at Federate's edges: the URL rule every endpoint, verification URI and issuer
/// passes (`EndpointSecurity` under a `DestinationPolicy`), and the terminal-text rule
/// (`TerminalText`). Any input may be refused; none may trap, and what is accepted must
/// satisfy the rule byte for byte.
enum EdgeTargets {
    /// The policies the first input byte picks from: a loopback issuer's, public addresses
    /// only, and public only except `10.0.0.0/8` and `idp.corp`.
    static let policies: [DestinationPolicy] = [
        DestinationPolicy(issuer: "http://127.0.0.1:8080"),
        DestinationPolicy(issuer: "https://op.example"),
        DestinationPolicy(issuer: "https://op.example", allowing: allowList),
    ]
    static let allowList: PrivateNetworkAllowList = {
        do {
            return try PrivateNetworkAllowList(["10.0.0.0/8", "idp.corp"])
        } catch {
            fatalError("fuzz allow-list: \(error)")
        }
    }()

    /// An accepted URL is printable ASCII without spaces, absolute, without user information,
    /// https unless the policy allows any address; and under a public-only policy, a host the
    /// C library reads as a numeric address (every `inet_aton` and `inet_pton` spelling) is one
    /// the policy permits: the rule's own address reader agrees with the system's.
    static func endpointURL(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let policy = policies[Int(selector) % policies.count]
        let url = String(decoding: bytes.dropFirst(), as: UTF8.self)
        guard (try? EndpointSecurity.validate(url, field: "fuzz", destination: policy)) != nil else { return }
        precondition(url.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "accepted a URL that is not printable ASCII")
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            preconditionFailure("accepted a URL without a host")
        }
        precondition(components.user == nil && components.password == nil, "accepted user information")
        let scheme = components.scheme?.lowercased()
        precondition(scheme == "https" || (scheme == "http" && policy.allowsAnyAddress), "accepted \(scheme ?? "no scheme") under \(policy)")
        guard !policy.allowsAnyAddress else { return }
        precondition(!EndpointSecurity.isLoopback(host: host), "accepted a loopback host")
        for address in numericAddresses(host) {
            precondition(policy.permits(host: host, address: address), "accepted \(host), which the system reads as \(address)")
        }
    }

    /// The addresses `getaddrinfo` reads `host` as without any lookup (`AI_NUMERICHOST`).
    static func numericAddresses(_ host: String) -> [[UInt8]] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix("."), !name.contains(":") { name.removeLast() }  // the rule reads `127.0.0.1.` as 127.0.0.1; glibc refuses it
        guard !name.isEmpty, !name.contains("\0") else { return [] }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry, let address = current.pointee.ai_addr {
            if current.pointee.ai_family == AF_INET {
                result.append(address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } })
            } else if current.pointee.ai_family == AF_INET6 {
                result.append(address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } })
            }
            entry = current.pointee.ai_next
        }
        return result
    }

    /// Two bytes of byte limit, then text: the result fits the limit, holds no character
    /// `TerminalText.isUnsafe(_:)` refuses, is the input itself when that was already safe and
    /// short enough, and is left as it is by a second pass.
    static func terminalText(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let limit = Int(bytes[0]) << 8 | Int(bytes[1])
        let text = String(decoding: bytes.dropFirst(2), as: UTF8.self)
        let safe = TerminalText.sanitized(text, maxBytes: limit)
        precondition(safe.utf8.count <= max(limit, 4), "\(safe.utf8.count) bytes over a limit of \(limit)")
        precondition(!safe.unicodeScalars.contains(where: TerminalText.isUnsafe), "an unsafe character survived")
        if text.utf8.count <= max(limit, 4), !text.unicodeScalars.contains(where: TerminalText.isUnsafe) {
            precondition(safe == text, "safe text was changed")
        }
        precondition(TerminalText.sanitized(safe, maxBytes: limit) == safe, "a second pass changed the text")
    }
}
