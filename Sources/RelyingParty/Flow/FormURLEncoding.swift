package import FederateTokens
/// `application/x-www-form-urlencoded` (WHATWG URL §5) and query-string handling.
package enum FormURLEncoding {
    /// Encodes pairs in order; space becomes `+`, everything but unreserved characters is percent-encoded.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes one component (unreserved characters stay; space becomes `+`).
    package static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    /// Decodes a query, fragment or form body into a dictionary.
    ///
    /// Strict: a parameter that appears twice is refused (RFC 6749 §3.1: "Request and
    /// response parameters MUST NOT be included more than once"), as are malformed percent
    /// escapes and invalid UTF-8. Empty pieces (`a=1&&b=2`) are ignored.
    package static func decode(_ text: some StringProtocol, maxBytes: Int = 64 * 1024) throws(FederateError) -> [String: String] {
        guard text.utf8.count <= maxBytes else {
            throw FederateError(.invalidCallback, "the parameters exceed \(maxBytes) bytes")
        }
        var result: [String: String] = [:]
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try unescape(parts[0])
            let value = parts.count > 1 ? try unescape(parts[1]) : ""
            guard !name.isEmpty else { continue }
            guard result.updateValue(value, forKey: name) == nil else {
                throw FederateError(.invalidCallback, "parameter '\(name.prefix(64))' appears more than once")
            }
        }
        return result
    }

    /// Every value of parameter `name` in `text`, decoded, in order, however malformed the
    /// rest is: what ties a callback that ``decode(_:maxBytes:)`` refuses to the flow it
    /// belongs to. A piece whose name or value cannot be decoded is skipped.
    package static func values(of name: String, in text: some StringProtocol) -> [String] {
        var values: [String] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let pieceName = try? unescape(parts[0]), pieceName == name else { continue }
            guard let value = parts.count > 1 ? try? unescape(parts[1]) : "" else { continue }
            values.append(value)
        }
        return values
    }

    private static func unescape(_ text: some StringProtocol) throws(FederateError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw FederateError(.invalidCallback, "malformed percent escape")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw FederateError(.invalidCallback, "parameters are not valid UTF-8")
        }
        return string
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
