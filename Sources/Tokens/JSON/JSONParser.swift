/// A strict, bounded JSON parser (RFC 8259) for untrusted input.
///
/// Compared with `JSONSerialization`/`JSONDecoder` it:
/// - rejects duplicate object member names (RFC 7515 §5.2 allows a JWS parser to; a
///   security library should);
/// - enforces a nesting limit and a size limit before and while parsing;
/// - rejects invalid UTF-8, unpaired surrogate escapes, control characters in strings,
///   leading zeros, trailing content and non-finite numbers;
/// - is fast enough to sit on the token-verification hot path.
public struct JSONParser: Sendable {
    /// Limits applied while parsing.
    public struct Limits: Sendable, Hashable {
        /// The largest accepted input, in bytes.
        public var maxBytes: Int
        /// The deepest accepted nesting of arrays and objects (the top level counts as 1).
        public var maxDepth: Int

        /// Creates limits.
        public init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// Defaults for documents fetched over HTTP: 1 MiB, depth 32.
        public static let document = Limits(maxBytes: 1 << 20, maxDepth: 32)
    }

    /// The limits in force.
    public var limits: Limits

    /// Creates a parser with the given limits.
    public init(limits: Limits = .document) {
        self.limits = limits
    }

    /// Parses a complete JSON text. Throws ``JSONParser/Error``.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONParser.Error) -> JSONValue {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge }
        let attempt: Result<JSONValue, JSONParser.Error>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParser.Error) in try parse(buffer: buffer) }
        }
        if let attempt { return try attempt.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParser.Error) in try parse(buffer: buffer) }
        }.get()
    }

    /// Parses a JSON text that must be an object, returning its members.
    public func parseObject(_ bytes: some Collection<UInt8>) throws(JSONParser.Error) -> [String: JSONValue] {
        guard case .object(let members) = try parse(bytes) else { throw .notAnObject }
        return members
    }

    private func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONParser.Error) -> JSONValue {
        var scanner = Scanner(bytes: buffer, maxDepth: limits.maxDepth)
        scanner.skipWhitespace()
        let value = try scanner.parseValue(depth: 0)
        scanner.skipWhitespace()
        guard scanner.atEnd else { throw .syntax(offset: scanner.index) }
        return value
    }
}

extension JSONParser {
    /// Why a JSON text was refused.
    public enum Error: Swift.Error, Sendable, Hashable {
        /// Larger than ``Limits/maxBytes``.
        case tooLarge
        /// Nested deeper than ``Limits/maxDepth``.
        case tooDeep
        /// A syntax error at this byte offset.
        case syntax(offset: Int)
        /// An object has the same member name twice.
        case duplicateKey(String)
        /// Not valid UTF-8, or an escape that does not form a valid scalar.
        case invalidUnicode(offset: Int)
        /// The top-level value is not an object where one was required.
        case notAnObject
    }
}

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParser.Error) -> JSONValue {
        guard index < bytes.count else { throw .syntax(offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw .syntax(offset: index)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParser.Error) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw .syntax(offset: index) }
        let base = literal.utf8Start
        for i in 0..<count where bytes[index + i] != base[i] {
            throw .syntax(offset: index + i)
        }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONParser.Error) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep }
        index += 1  // {
        // A top-level object (a token's header or payload; Google's ID tokens carry 16 claims)
        // gets room for 24 members from the start: growing 1→2→4→8→16 rehashed every member on
        // the verification hot path, and 24 costs the same 32 buckets as 16. Nested objects
        // (`cnf`, `address`) are small.
        var members = [String: JSONValue](minimumCapacity: depth == 1 ? 24 : 4)  // the top-level object is at depth 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw .syntax(offset: index) }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw .syntax(offset: index) }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            guard members.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key) }
            skipWhitespace()
            guard index < bytes.count else { throw .syntax(offset: index) }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw .syntax(offset: index)
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParser.Error) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw .syntax(offset: index) }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw .syntax(offset: index)
            }
        }
    }

    mutating func parseNumber() throws(JSONParser.Error) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw .syntax(offset: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else {
            throw .syntax(offset: index)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw .syntax(offset: index) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw .syntax(offset: index) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let value = Self.int64(text) {
            return .integer(value)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw .syntax(offset: start)
        }
        return .double(value)
    }

    /// Parses an optionally negative run of decimal digits into Int64, nil on overflow.
    static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var negative = false
        var i = 0
        if text[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        var value: Int64 = 0
        while i < text.count {
            let digit = Int64(text[i] &- UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(digit) : m.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        return value
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONParser.Error) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, ASCII or valid UTF-8 without control characters.
        var sawEscape = false
        var sawNonASCII = false
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") { sawEscape = true; break }
            if b < 0x20 { throw .syntax(offset: index) }
            if b >= 0x80 { sawNonASCII = true }
            index += 1
        }
        guard index < bytes.count else { throw .syntax(offset: index) }
        if !sawEscape {
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
            index += 1
            if sawNonASCII {
                guard let s = String(validating: raw, as: UTF8.self) else { throw .invalidUnicode(offset: start) }
                return s
            }
            return String(decoding: raw, as: UTF8.self)
        }
        // Slow path with escapes.
        var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw .invalidUnicode(offset: start) }
                return s
            }
            if b < 0x20 { throw .syntax(offset: index) }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw .syntax(offset: index) }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                let first = try parseHex4()
                var scalarValue = UInt32(first)
                if (0xD800...0xDBFF).contains(first) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw .invalidUnicode(offset: index) }
                    index += 2
                    let second = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(second) else { throw .invalidUnicode(offset: index) }
                    scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(first) {
                    throw .invalidUnicode(offset: index)
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw .invalidUnicode(offset: index) }
                out.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw .syntax(offset: index - 1)
            }
        }
        throw .syntax(offset: index)
    }

    mutating func parseHex4() throws(JSONParser.Error) -> UInt16 {
        guard bytes.count - index >= 4 else { throw .syntax(offset: index) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw .syntax(offset: index)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
