/// An HTTP target URI as DPoP compares it (RFC 9449 §4.3, check 9): without its query and
/// fragment, after syntax-based and scheme-based normalization (RFC 3986 §6.2.2, §6.2.3):
/// scheme and host in lower case, the scheme's default port dropped, an empty path as `/`,
/// percent-encodings of unreserved characters decoded and the others in upper case, and
/// dot segments removed.
///
/// A URI that is not absolute `http` or `https`, carries user information, or has a
/// malformed port or percent-encoding has no normalized form: it matches nothing.
package struct HTTPTargetURI: Sendable, Hashable, CustomStringConvertible {
    /// The normalized form, e.g. `https://server.example.com/token`.
    package let normalized: String

    /// Normalizes `uri`; `nil` when it cannot be compared (see the type's description).
    ///
    /// Works on the UTF-8 bytes: only ASCII letters change case, so no Unicode case mapping
    /// (the Kelvin sign `K` lower-casing to `k`) can make two different hosts compare equal.
    public init?(_ uri: String) {
        let bytes = Array(uri.utf8)
        guard bytes.count <= 8 * 1024, let separator = Self.firstIndex(of: Array("://".utf8), in: bytes) else { return nil }
        let scheme = Self.asciiLowercased(bytes[..<separator])
        let defaultPort: [UInt8]
        switch scheme {
        case Array("https".utf8): defaultPort = Array("443".utf8)
        case Array("http".utf8): defaultPort = Array("80".utf8)
        default: return nil
        }
        var rest = bytes[(separator + 3)...]
        if let end = rest.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { rest = rest[..<end] }
        let authorityEnd = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
        var host = authority
        var port = authority[authority.endIndex...]
        let hostEnd =
            authority.first == UInt8(ascii: "[")
            ? (authority.firstIndex(of: UInt8(ascii: "]")).map { $0 + 1 } ?? authority.endIndex) : authority.startIndex
        if let colon = authority[hostEnd...].lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            let digits = authority[(colon + 1)...]
            guard digits.count <= 5, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            port = digits.drop { $0 == UInt8(ascii: "0") }
            if port.isEmpty && !digits.isEmpty { port = digits[(digits.endIndex - 1)...] }
        }
        guard !host.isEmpty, let path = Self.normalizedPath(rest[authorityEnd...]) else { return nil }
        var normalized = scheme + Array("://".utf8) + Self.asciiLowercased(host)
        if !port.isEmpty && !port.elementsEqual(defaultPort) { normalized += [UInt8(ascii: ":")] + port }
        normalized += path
        self.normalized = String(decoding: normalized, as: UTF8.self)
    }

    public var description: String { normalized }

    /// Equal when the normalized forms have the same bytes (not mere canonical equivalence:
    /// a path with `U+212A`, KELVIN SIGN, is another target than one with `K`).
    public static func == (lhs: HTTPTargetURI, rhs: HTTPTargetURI) -> Bool { lhs.normalized.exactlyEquals(rhs.normalized) }

    public func hash(into hasher: inout Hasher) { hasher.combine(ExactString(normalized)) }

    /// Whether `a` and `b` name the same target (both normalizable and equal).
    static func matches(_ a: String, _ b: String) -> Bool {
        guard let left = HTTPTargetURI(a), let right = HTTPTargetURI(b) else { return false }
        return left == right
    }

    private static func normalizedPath(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var bytes = raw.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexValue), let low = bytes.next().flatMap(hexValue) else { return nil }
            let value = high << 4 | low
            if isUnreserved(value) {
                decoded.append(value)
            } else {
                decoded.append(contentsOf: Self.percentEncoded(value))
            }
        }
        let path = removeDotSegments(decoded)
        return path.isEmpty ? [UInt8(ascii: "/")] : path
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    private static func asciiLowercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 0x20 : $0 }
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
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// RFC 3986 §5.2.4, on `/`-separated segments.
    private static func removeDotSegments(_ path: [UInt8]) -> [UInt8] {
        guard path.contains(UInt8(ascii: ".")) else { return path }
        var output: [ArraySlice<UInt8>] = []
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            if segment.elementsEqual([UInt8(ascii: ".")]) {
                if last { output.append([]) }
            } else if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                if output.count > 1 { output.removeLast() }
                if last { output.append([]) }
            } else {
                output.append(segment)
            }
        }
        let joined = Array(output.joined(separator: [UInt8(ascii: "/")]))
        return joined.first == UInt8(ascii: "/") || joined.isEmpty ? joined : [UInt8(ascii: "/")] + joined
    }
}
