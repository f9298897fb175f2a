/// An HTTP target URI as DPoP compares it (RFC 9449 §4.3, check 9): without its query and
/// fragment, after syntax-based and scheme-based normalization (RFC 3986 §6.2.2, §6.2.3):
/// scheme and host in lower case, the scheme's default port dropped, an empty path as `/`,
/// percent-encodings of unreserved characters decoded and the others in upper case, and
/// dot segments removed.
///
/// A URI that is not absolute `http` or `https`, carries user information, or has a
/// malformed port or percent-encoding has no normalized form: it matches nothing.
public struct HTTPTargetURI: Sendable, Hashable, CustomStringConvertible {
    /// The normalized form, e.g. `https://server.example.com/token`.
    public let normalized: String

    /// Normalizes `uri`; `nil` when it cannot be compared (see the type's description).
    public init?(_ uri: String) {
        guard uri.utf8.count <= 8 * 1024, let separator = uri.firstRange(of: "://") else { return nil }
        let scheme = uri[..<separator.lowerBound].lowercased()
        let defaultPort: String
        switch scheme {
        case "https": defaultPort = "443"
        case "http": defaultPort = "80"
        default: return nil
        }
        var rest = uri[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = Substring(authority)
        var port: Substring = ""
        let hostEnd = authority.hasPrefix("[") ? (authority.firstIndex(of: "]").map(authority.index(after:)) ?? authority.endIndex) : authority.startIndex
        if let colon = authority[hostEnd...].lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
            guard port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), port.count <= 5 else { return nil }
            port = port.drop { $0 == "0" }
            if port.isEmpty && !authority[authority.index(after: colon)...].isEmpty { port = "0" }
        }
        guard !host.isEmpty, let path = Self.normalizedPath(rest[authorityEnd...]) else { return nil }
        let portPart = port.isEmpty || port == defaultPort ? "" : ":" + port
        normalized = scheme + "://" + host.lowercased() + portPart + path
    }

    public var description: String { normalized }

    /// Whether `a` and `b` name the same target (both normalizable and equal).
    public static func matches(_ a: String, _ b: String) -> Bool {
        guard let left = HTTPTargetURI(a), let right = HTTPTargetURI(b) else { return false }
        return left == right
    }

    private static func normalizedPath(_ raw: Substring) -> String? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.utf8.count)
        var bytes = raw.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else { decoded.append(byte); continue }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            let value = high << 4 | low
            if isUnreserved(value) {
                decoded.append(value)
            } else {
                decoded.append(contentsOf: Self.percentEncoded(value))
            }
        }
        let path = removeDotSegments(String(decoding: decoded, as: UTF8.self))
        return path.isEmpty ? "/" : path
    }

    /// `%XX` with upper-case hex digits.
    private static func percentEncoded(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// RFC 3986 §5.2.4, on `/`-separated segments.
    private static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        let joined = output.joined(separator: "/")
        return joined.hasPrefix("/") || joined.isEmpty ? joined : "/" + joined
    }
}
