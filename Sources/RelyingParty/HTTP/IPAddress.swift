import Foundation

/// An IPv4 or IPv6 address as its bytes, read from a URL host the way a resolver reads it, so
/// that every spelling of an address counts as the address it names.
///
/// IPv4 in any form `inet_aton` accepts (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`),
/// with one trailing dot; IPv6 bare or in brackets, with or without a zone (`fe80::1%25eth0`).
/// An IPv6 address that embeds an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by the IPv4 address it carries.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    package let bytes: [UInt8]

    /// What an address reaches, for the private-network rule (Docs/Security.md).
    enum Scope: String, Sendable {
        /// 127.0.0.0/8, `::1`.
        case loopback
        /// 169.254.0.0/16, fe80::/10.
        case linkLocal = "link-local"
        /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 (shared, carrier-grade NAT), fc00::/7, fec0::/10.
        case privateNetwork = "private"
        /// 0.0.0.0/8 (on Linux a connection to it reaches this machine), `::`.
        case unspecified
        /// Anything else.
        case `public`
    }

    /// An address of 4 or 16 bytes; `nil` for any other length.
    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address a URL host names, or `nil` when the host is a name (or not a host at all).
    package init?(host: String) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":") {
            if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
            guard let bytes = Self.parseIPv6(String(text)) else { return nil }
            self.bytes = bytes
            return
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard let bytes = Self.parseIPv4(text) else { return nil }
        self.bytes = bytes
    }

    /// The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), else `nil`.
    package var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        let zeroPrefix = b[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix, b[10] == 0xFF, b[11] == 0xFF { return IPAddress(bytes: Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if zeroPrefix, b[10] == 0, b[11] == 0, b[12..<16].contains(where: { $0 != 0 }), !(b[12..<15].allSatisfy { $0 == 0 } && b[15] == 1) {
            return IPAddress(bytes: Array(b[12..<16]))  // ::a.b.c.d, but not :: or ::1
        }
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return IPAddress(bytes: Array(b[12..<16])) }  // 64:ff9b::/96
        if b[0] == 0x20, b[1] == 0x02 { return IPAddress(bytes: Array(b[2..<6])) }  // 2002::/16
        return nil
    }

    /// What the address reaches.
    var scope: Scope {
        if let embedded = embeddedIPv4 { return embedded.scope }
        let b = bytes
        if b.count == 4 {
            switch (b[0], b[1]) {
            case (127, _): return .loopback
            case (0, _): return .unspecified
            case (169, 254): return .linkLocal
            case (10, _), (172, 16...31), (192, 168), (100, 64...127): return .privateNetwork
            default: return .public
            }
        }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : (b[15] == 0 ? .unspecified : .public) }
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] & 0xFE == 0xFC { return .privateNetwork }  // fc00::/7
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return .privateNetwork }  // fec0::/10, deprecated site-local
        return .public
    }

    /// Whether the first `length` bits equal `network`'s (an IPv4 network also matches the
    /// IPv4 address an IPv6 one carries).
    func isIn(_ network: IPAddress, prefixLength length: Int) -> Bool {
        if network.bytes.count == 4, bytes.count == 16, let embedded = embeddedIPv4 { return embedded.isIn(network, prefixLength: length) }
        guard network.bytes.count == bytes.count, length >= 0, length <= bytes.count * 8 else { return false }
        let whole = length / 8, rest = length % 8
        guard bytes[0..<whole] == network.bytes[0..<whole] else { return false }
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return bytes[whole] & mask == network.bytes[whole] & mask
    }

    package var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `inet_aton`'s forms: 1 to 4 parts, each decimal, octal (leading `0`) or hexadecimal
    /// (`0x`); the last part fills the bytes the others leave.
    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        let last = values.removeLast()
        guard values.allSatisfy({ $0 <= 0xFF }), last < (UInt64(1) << (8 * UInt64(4 - values.count))) else { return nil }
        var address: UInt64 = last
        for (index, value) in values.enumerated() { address |= value << (8 * UInt64(3 - index)) }
        return [UInt8(address >> 24 & 0xFF), UInt8(address >> 16 & 0xFF), UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF)]
    }

    private static func number(_ part: Substring) -> UInt64? {
        var digits = part.utf8[...]
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"), digits.dropFirst().first.map({ $0 | 0x20 == UInt8(ascii: "x") }) == true {
            radix = 16
            digits = digits.dropFirst(2)
            if digits.isEmpty { return 0 }  // `0x` alone is 0 to inet_aton
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            radix = 8
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            value = value * radix + digit
            guard value <= 0xFFFF_FFFF else { return nil }
        }
        return value
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 64 else { return nil }
        var raw = in6_addr()
        guard inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
        return withUnsafeBytes(of: raw) { Array($0) }
    }
}
