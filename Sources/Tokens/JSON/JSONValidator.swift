#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The kind of a JSON value, as the validation pass records it.
enum JSONKind: UInt8, Sendable {
    case string, number, object, array, `true`, `false`, null
}

/// One top-level member of a validated JSON object: where its name and its value lie in the text.
struct JSONMember: Sendable {
    /// The name's first byte (after its opening quote) and its length as written.
    let nameStart: Int32
    let nameCount: Int32
    /// The value's first byte and its length; a string's content, without its quotes.
    var valueStart: Int32 = 0
    var valueCount: Int32 = 0
    /// The value's kind.
    var kind: JSONKind = .null
    /// The registered name the decoded name spells, or ``JSONName/other``.
    let name: JSONName
    /// Whether the name is written with escapes (read it decoded).
    let nameEscaped: Bool
    /// Whether a string value is written with escapes (read it decoded).
    var valueEscaped = false
}

/// The one strict pass over untrusted JSON text (RFC 8259), which every JSON Federate reads
/// goes through: token headers and payloads, key sets, discovery documents, responses.
///
/// It refuses invalid UTF-8 and unpaired surrogate escapes, control characters in strings,
/// leading zeros, numbers that are not finite, anything after the top-level value, nesting
/// deeper than the limit, and an object that has the same member name twice at any depth.
/// Names are compared decoded (`"iss"` and `"\u0069ss"` are one name) and, when one of them is
/// not plain ASCII, as Unicode canonical equivalents too, so no two members of an object can
/// ever read as one (a materialized ``JSONValue`` object is a `[String: JSONValue]`).
///
/// It builds no value: for an object at the top it records where each member lies
/// (``JSONMember``) and which registered names are present; values are read from the text
/// when asked for (``JSONMembers``).
struct JSONValidator {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let maxDepth: Int
    private var position = 0
    /// The deepest nesting seen (the top level counts as 1).
    private var deepest = 0
    /// The top-level object's members, when recording.
    private var members: [JSONMember] = []
    /// The names of the nested objects being read, each checked when it closes.
    private var nestedNames: [JSONMember] = []
    /// Whether the last string read had escapes.
    private var lastStringEscaped = false

    /// The most names of one object compared pairwise as they come; beyond, the object is
    /// checked by sorting its names when it closes.
    private static let pairwiseLimit = 32

    private init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
    }

    /// A validator at the start of `text`; an empty text is a syntax error at offset 0.
    private static func start(_ text: UnsafeBufferPointer<UInt8>, limits: JSONParser.Limits) throws(JSONParser.Error) -> JSONValidator {
        guard text.count <= limits.maxBytes, text.count <= Int(Int32.max) else { throw .tooLarge }
        guard let base = text.baseAddress, !text.isEmpty else { throw .syntax(offset: 0) }
        var validator = JSONValidator(base: base, count: text.count, maxDepth: limits.maxDepth)
        validator.skipWhitespace()
        return validator
    }

    /// Validates `text` as one JSON value of any kind; returns the deepest nesting.
    static func validate(_ text: UnsafeBufferPointer<UInt8>, limits: JSONParser.Limits) throws(JSONParser.Error) -> Int {
        var validator = try start(text, limits: limits)
        _ = try validator.parseValue(depth: 0)
        try validator.finish()
        return validator.deepest
    }

    /// What validating an object recorded.
    struct Object {
        /// Its members, in document order.
        var members: [JSONMember]
        /// The registered names present (``JSONName/bit``).
        var presence: UInt64
        /// The deepest nesting (the object itself is 1).
        var depth: Int
    }

    /// Validates `text` as one JSON value that must be an object, recording its members.
    /// A well-formed value of another kind is ``JSONParser/Error/notAnObject``.
    static func validateObject(_ text: UnsafeBufferPointer<UInt8>, limits: JSONParser.Limits) throws(JSONParser.Error) -> Object {
        var validator = try start(text, limits: limits)
        guard validator.position < validator.count, validator.base[validator.position] == UInt8(ascii: "{") else {
            _ = try validator.parseValue(depth: 0)
            try validator.finish()
            throw .notAnObject
        }
        // A token's payload carries 8 to 20 claims: one allocation for them, most of the time.
        validator.members.reserveCapacity(24)
        let presence = try validator.parseObject(depth: 1, recording: true)
        try validator.finish()
        return Object(members: validator.members, presence: presence, depth: validator.deepest)
    }

    private mutating func finish() throws(JSONParser.Error) {
        skipWhitespace()
        guard position >= count else { throw .syntax(offset: position) }
    }

    private mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParser.Error) -> JSONKind {
        guard position < count else { throw .syntax(offset: position) }
        switch base[position] {
        case UInt8(ascii: "{"):
            _ = try parseObject(depth: depth + 1, recording: false)
            return .object
        case UInt8(ascii: "["):
            try parseArray(depth: depth + 1)
            return .array
        case UInt8(ascii: "\""):
            lastStringEscaped = try scanString().escaped
            return .string
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .false
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            return .number
        default:
            throw .syntax(offset: position)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParser.Error) {
        let length = literal.utf8CodeUnitCount
        guard count - position >= length else { throw .syntax(offset: position) }
        let text = literal.utf8Start
        for index in 0..<length where base[position + index] != text[index] {
            throw .syntax(offset: position + index)
        }
        position += length
    }

    // MARK: - Objects and arrays

    /// Reads an object; with `recording`, its members go to ``members``. Returns the
    /// registered names present.
    private mutating func parseObject(depth: Int, recording: Bool) throws(JSONParser.Error) -> UInt64 {
        guard depth <= maxDepth else { throw .tooDeep }
        deepest = max(deepest, depth)
        position += 1  // {
        let first = recording ? members.count : nestedNames.count
        var presence: UInt64 = 0
        // Set when a name can only be told apart from the others decoded: then every name of
        // the object is compared when it closes.
        var deferred = false
        skipWhitespace()
        if position < count, base[position] == UInt8(ascii: "}") {
            position += 1
            return presence
        }
        while true {
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: "\"") else { throw .syntax(offset: position) }
            var (member, nonASCII) = try scanName()
            if isDuplicate(member, nonASCII: nonASCII, recording: recording, from: first, presence: &presence, deferred: &deferred) {
                throw .duplicateKey(decodedName(member))
            }
            skipWhitespace()
            guard position < count, base[position] == UInt8(ascii: ":") else { throw .syntax(offset: position) }
            position += 1
            skipWhitespace()
            let valueStart = position
            let kind = try parseValue(depth: depth)
            if recording {
                if kind == .string {
                    // The content, without the quotes.
                    member.valueStart = Int32(valueStart + 1)
                    member.valueCount = Int32(position - valueStart - 2)
                    member.valueEscaped = lastStringEscaped
                } else {
                    member.valueStart = Int32(valueStart)
                    member.valueCount = Int32(position - valueStart)
                }
                member.kind = kind
                members.append(member)
            } else {
                // Appended after its value: the value's own names have left the list by now.
                nestedNames.append(member)
            }
            skipWhitespace()
            guard position < count else { throw .syntax(offset: position) }
            switch base[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                if deferred { try checkDecodedNames(recording: recording, from: first) }
                if !recording { nestedNames.removeSubrange(first...) }
                return presence
            default:
                throw .syntax(offset: position)
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParser.Error) {
        guard depth <= maxDepth else { throw .tooDeep }
        deepest = max(deepest, depth)
        position += 1  // [
        skipWhitespace()
        if position < count, base[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            _ = try parseValue(depth: depth)
            skipWhitespace()
            guard position < count else { throw .syntax(offset: position) }
            switch base[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default: throw .syntax(offset: position)
            }
        }
    }

    // MARK: - Duplicate names

    /// Whether `name` repeats a name of the object whose names are `names[first...]`: at once
    /// for a registered name (its bit) or a plain ASCII name (byte comparison with the
    /// others), or, once `deferred`, when the object closes (``checkDecodedNames(_:from:)``).
    private func isDuplicate(
        _ name: JSONMember, nonASCII: Bool, recording: Bool, from first: Int, presence: inout UInt64, deferred: inout Bool
    ) -> Bool {
        if name.name != .other {
            guard presence & name.name.bit == 0 else { return true }
            presence |= name.name.bit
            return false
        }
        if deferred { return false }
        let names = recording ? members : nestedNames
        if name.nameEscaped || nonASCII || names.count - first >= Self.pairwiseLimit {
            deferred = true
            return false
        }
        let length = Int(name.nameCount)
        let start = base + Int(name.nameStart)
        for index in first..<names.count {
            let other = names[index]
            guard other.name == .other, !other.nameEscaped, Int(other.nameCount) == length else { continue }
            if memcmp(start, base + Int(other.nameStart), length) == 0 { return true }
        }
        return false
    }

    /// Every name of the object decoded, sorted, and compared with its neighbour as `String`s:
    /// equal decoded bytes, and canonically equivalent spellings, are the same name.
    private func checkDecodedNames(recording: Bool, from first: Int) throws(JSONParser.Error) {
        let names = recording ? members : nestedNames
        var decoded: [String] = []
        decoded.reserveCapacity(names.count - first)
        for index in first..<names.count { decoded.append(decodedName(names[index])) }
        decoded.sort()
        for index in decoded.indices.dropFirst() where decoded[index] == decoded[index - 1] {
            throw .duplicateKey(decoded[index])
        }
    }

    private func decodedName(_ name: JSONMember) -> String {
        JSONText.string(base + Int(name.nameStart), count: Int(name.nameCount), escaped: name.nameEscaped)
    }

    // MARK: - Strings

    /// Reads a member name: where it lies, its registered name, and whether it has a
    /// non-ASCII character.
    private mutating func scanName() throws(JSONParser.Error) -> (JSONMember, nonASCII: Bool) {
        let (start, end, escaped, nonASCII) = try scanString()
        let registered: JSONName
        if escaped {
            let decoded = JSONText.decodedBytes(base + start, count: end - start)
            registered = decoded.withUnsafeBufferPointer(JSONName.classify)
        } else {
            registered = JSONName.classify(UnsafeBufferPointer(start: base + start, count: end - start))
        }
        let member = JSONMember(nameStart: Int32(start), nameCount: Int32(end - start), name: registered, nameEscaped: escaped)
        return (member, nonASCII)
    }

    /// Reads a string at `position` (its opening quote); leaves `position` after the closing
    /// quote. Returns where its content lies, whether it has escapes, and whether it has a
    /// character beyond ASCII (raw or escaped).
    private mutating func scanString() throws(JSONParser.Error) -> (start: Int, end: Int, escaped: Bool, nonASCII: Bool) {
        position += 1  // "
        let start = position
        var escaped = false
        var nonASCII = false
        while true {
            // Eight bytes at a time: skip those that need no look, straight to the first that does.
            if count - position >= 8 {
                let marks = Self.bytesNeedingALook(UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
                guard marks != 0 else {
                    position += 8
                    continue
                }
                position += marks.trailingZeroBitCount >> 3
            }
            guard position < count else { throw .syntax(offset: position) }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start, position - 1, escaped, nonASCII)
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                if try scanEscape() { nonASCII = true }
            } else if byte < 0x20 {
                throw .syntax(offset: position)
            } else if byte >= 0x80 {
                nonASCII = true
                try scanUTF8Sequence(stringStart: start)
            } else {
                position += 1
            }
        }
    }

    /// The high bit of each byte of `word` (little-endian) that is a quote, a backslash, a
    /// control character or not ASCII; exact for the lowest such byte, which is all the scan
    /// needs (a borrow can only mark bytes above a marked one).
    private static func bytesNeedingALook(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteHit = (quote &- ones) & ~quote & highs
        let backslashHit = (backslash &- ones) & ~backslash & highs
        return control | quoteHit | backslashHit | (word & highs)
    }

    /// Checks the escape at `position` (its backslash) and moves past it; returns whether it
    /// stands for a character beyond ASCII. A high surrogate must be followed by a low one;
    /// a lone low surrogate is refused.
    private mutating func scanEscape() throws(JSONParser.Error) -> Bool {
        position += 1
        guard position < count else { throw .syntax(offset: position) }
        let escape = base[position]
        position += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
            UInt8(ascii: "r"), UInt8(ascii: "t"):
            return false
        case UInt8(ascii: "u"):
            let first = try hex4()
            if (0xD800...0xDBFF).contains(first) {
                guard count - position >= 6, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else {
                    throw .invalidUnicode(offset: position)
                }
                position += 2
                let second = try hex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw .invalidUnicode(offset: position) }
                return true
            }
            if (0xDC00...0xDFFF).contains(first) { throw .invalidUnicode(offset: position) }
            return first >= 0x80
        default:
            throw .syntax(offset: position - 1)
        }
    }

    private mutating func hex4() throws(JSONParser.Error) -> UInt16 {
        guard count - position >= 4 else { throw .syntax(offset: position) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = JSONText.hexDigit(base[position]) else { throw .syntax(offset: position) }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Checks the UTF-8 sequence at `position` (Unicode Table 3-7: no overlong forms, no
    /// surrogates, nothing beyond U+10FFFF) and moves past it.
    private mutating func scanUTF8Sequence(stringStart: Int) throws(JSONParser.Error) {
        let lead = base[position]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            highest = 0x9F
        case 0xF0:
            length = 4
            lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            highest = 0x8F
        default: throw .invalidUnicode(offset: stringStart)
        }
        guard count - position >= length else { throw .invalidUnicode(offset: stringStart) }
        let second = base[position + 1]
        guard second >= lowest, second <= highest else { throw .invalidUnicode(offset: stringStart) }
        for index in 2..<length where base[position + index] & 0xC0 != 0x80 {
            throw .invalidUnicode(offset: stringStart)
        }
        position += length
    }

    // MARK: - Numbers

    /// Reads a number: no leading zeros, digits after `.` and after an exponent; one written
    /// without fraction or exponent that fits `Int64` is an integer, any other must be a
    /// finite `Double`.
    private mutating func scanNumber() throws(JSONParser.Error) {
        let start = position
        var isInteger = true
        if base[position] == UInt8(ascii: "-") { position += 1 }
        guard position < count else { throw .syntax(offset: position) }
        if base[position] == UInt8(ascii: "0") {
            position += 1
        } else if JSONText.isDigit(base[position]) {
            while position < count, JSONText.isDigit(base[position]) { position += 1 }
        } else {
            throw .syntax(offset: position)
        }
        if position < count, base[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < count, JSONText.isDigit(base[position]) else { throw .syntax(offset: position) }
            while position < count, JSONText.isDigit(base[position]) { position += 1 }
        }
        if position < count, base[position] == UInt8(ascii: "e") || base[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < count, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") { position += 1 }
            guard position < count, JSONText.isDigit(base[position]) else { throw .syntax(offset: position) }
            while position < count, JSONText.isDigit(base[position]) { position += 1 }
        }
        // Up to 18 digits always fit Int64; longer ones are read as JSONText reads them.
        if isInteger, position - start <= 18 { return }
        guard JSONText.number(base + start, count: position - start) != nil else { throw .syntax(offset: start) }
    }
}
