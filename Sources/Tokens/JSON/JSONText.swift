/// Reads JSON text that ``JSONValidator`` accepted: values are built from it only when asked
/// for, and no check of the validation pass is repeated.
struct JSONText {
    let base: UnsafePointer<UInt8>
    let count: Int

    // MARK: - Values

    /// The value at `position`, built; `position` moves past it.
    func value(at position: inout Int) -> JSONValue {
        skipWhitespace(&position)
        switch base[position] {
        case UInt8(ascii: "{"):
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace(&position)
            if base[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace(&position)
                let (start, end, escaped) = stringExtent(at: &position)
                let name = Self.string(base + start, count: end - start, escaped: escaped)
                skipWhitespace(&position)
                position += 1  // :
                // The validation pass refused two names that compare equal as `String`s.
                members[name] = value(at: &position)
                skipWhitespace(&position)
                let separator = base[position]
                position += 1
                if separator == UInt8(ascii: "}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace(&position)
            if base[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                elements.append(value(at: &position))
                skipWhitespace(&position)
                let separator = base[position]
                position += 1
                if separator == UInt8(ascii: "]") { return .array(elements) }
            }
        case UInt8(ascii: "\""):
            let (start, end, escaped) = stringExtent(at: &position)
            return .string(Self.string(base + start, count: end - start, escaped: escaped))
        case UInt8(ascii: "t"):
            position += 4
            return .bool(true)
        case UInt8(ascii: "f"):
            position += 5
            return .bool(false)
        case UInt8(ascii: "n"):
            position += 4
            return .null
        default:
            let start = position
            while position < count, Self.isNumberByte(base[position]) { position += 1 }
            return Self.number(base + start, count: position - start) ?? .null
        }
    }

    /// Moves `position` past the value there.
    func skipValue(at position: inout Int) {
        skipWhitespace(&position)
        switch base[position] {
        case UInt8(ascii: "\""):
            _ = stringExtent(at: &position)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                switch base[position] {
                case UInt8(ascii: "\""):
                    _ = stringExtent(at: &position)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                position += 1
            } while depth > 0
        default:
            while position < count {
                switch base[position] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return
                default: position += 1
                }
            }
        }
    }

    func skipWhitespace(_ position: inout Int) {
        while position < count {
            switch base[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The content of the string whose opening quote is at `position`, and whether it has
    /// escapes; `position` moves past the closing quote.
    func stringExtent(at position: inout Int) -> (start: Int, end: Int, escaped: Bool) {
        position += 1
        let start = position
        var escaped = false
        while base[position] != UInt8(ascii: "\"") {
            if base[position] == UInt8(ascii: "\\") {
                escaped = true
                position += 1  // the escaped character; `\uXXXX`'s digits are plain bytes
            }
            position += 1
        }
        position += 1
        return (start, position - 1, escaped)
    }

    // MARK: - Arrays in place

    /// The elements of an array, one position at a time.
    struct Elements {
        private let text: JSONText
        private var position: Int
        private var done: Bool

        /// The elements of the array whose `[` is at `position`.
        init(_ text: JSONText, arrayAt position: Int) {
            self.text = text
            var position = position + 1
            text.skipWhitespace(&position)
            self.position = position
            self.done = text.base[position] == UInt8(ascii: "]")
        }

        /// The position of the next element's first byte; `nil` after the last.
        mutating func next() -> Int? {
            guard !done else { return nil }
            text.skipWhitespace(&position)
            let element = position
            text.skipValue(at: &position)
            text.skipWhitespace(&position)
            done = text.base[position] == UInt8(ascii: "]")
            position += 1
            return element
        }
    }

    /// The string whose opening quote is at `position`, decoded (nothing is copied when it
    /// has no escapes), passed to `body`.
    func withString<Result>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var end = position
        let (start, stop, escaped) = stringExtent(at: &end)
        guard escaped else { return body(UnsafeBufferPointer(start: base + start, count: stop - start)) }
        return Self.decodedBytes(base + start, count: stop - start).withUnsafeBufferPointer(body)
    }

    // MARK: - Strings

    /// The string whose content is the `count` bytes at `start` (valid UTF-8, escapes valid).
    static func string(_ start: UnsafePointer<UInt8>, count: Int, escaped: Bool) -> String {
        guard escaped else { return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }
        return String(decoding: decodedBytes(start, count: count), as: UTF8.self)
    }

    /// The bytes a string's content stands for, escapes decoded.
    static func decodedBytes(_ start: UnsafePointer<UInt8>, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var index = 0
        while index < count {
            let byte = start[index]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            let escape = start[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var value = UInt32(hex4(start + index))
                index += 4
                if (0xD800...0xDBFF).contains(value) {
                    let low = UInt32(hex4(start + index + 2))
                    index += 6
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                // The validation pass refused lone surrogates: every value is a scalar.
                if let scalar = Unicode.Scalar(value) { UTF8.encode(scalar) { out.append($0) } }
            default:
                out.append(escape)  // `"`, `\`, `/`
            }
        }
        return out
    }

    /// Whether two string contents stand for the same bytes.
    static func decodedEqual(
        _ lhs: UnsafePointer<UInt8>, _ lhsCount: Int, _ lhsEscaped: Bool, _ rhs: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard lhsEscaped else { return lhsCount == rhs.count && UnsafeBufferPointer(start: lhs, count: lhsCount).elementsEqual(rhs) }
        return decodedBytes(lhs, count: lhsCount).elementsEqual(rhs)
    }

    private static func hex4(_ digits: UnsafePointer<UInt8>) -> UInt16 {
        var value: UInt16 = 0
        for index in 0..<4 { value = value << 4 | UInt16(hexDigit(digits[index]) ?? 0) }
        return value
    }

    /// The value of a hexadecimal digit.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: - Numbers

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E")
    }

    /// The number spelled by the `count` bytes at `start` (JSON number syntax): an integer
    /// when written without fraction or exponent and within `Int64`, else a `Double`; `nil`
    /// when that `Double` is not finite.
    static func number(_ start: UnsafePointer<UInt8>, count: Int) -> JSONValue? {
        let text = UnsafeBufferPointer(start: start, count: count)
        let isInteger = !text.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isInteger, let value = int64(text) { return .integer(value) }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return .double(value)
    }

    /// An optionally negative run of decimal digits as `Int64`; `nil` on overflow.
    static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var negative = false
        var index = 0
        if text[0] == UInt8(ascii: "-") {
            negative = true
            index = 1
        }
        var value: Int64 = 0
        while index < text.count {
            let digit = Int64(text[index] &- UInt8(ascii: "0"))
            let (scaled, overflowScaling) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowAdding) = negative ? scaled.subtractingReportingOverflow(digit) : scaled.addingReportingOverflow(digit)
            if overflowScaling || overflowAdding { return nil }
            value = next
            index += 1
        }
        return value
    }
}
