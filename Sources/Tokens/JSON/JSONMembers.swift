/// The members of a JSON object that Federate validated, kept as the object's text: a token's
/// claims (``VerifiedJWT/claims``) and its protected header (`JOSEHeader.members`).
///
/// The text passed the one strict validation pass (`JSONParser`'s rules: UTF-8, no duplicate
/// names at any depth, the nesting limit, finite numbers), which also recorded where each
/// top-level member lies. A value is built as a ``JSONValue`` only when it is read, so
/// verifying a token builds no dictionary:
///
/// ```swift
/// let tenant = idToken.claims["tid"]?.stringValue
/// let everything: [String: JSONValue] = idToken.claims.dictionary
/// ```
///
/// Names are looked up by their exact UTF-8 bytes, decoded: `"iss"` and `"\u0069ss"` in the
/// text are the same member, and `"\u{212A}"` (KELVIN SIGN) never finds `"K"`.
public struct JSONMembers: Sendable {
    /// The text; the object is its first ``textCount`` bytes (a token's payload shares its
    /// buffer with the signature that follows it).
    let text: [UInt8]
    let textCount: Int
    /// The top-level members, in document order.
    let members: [JSONMember]
    /// The registered names present (``JSONName/bit``).
    let presence: UInt64
    /// The deepest nesting (the object itself is 1).
    let depth: Int

    /// Validates the first `count` bytes of `text` as a JSON object under `limits`.
    init(validating text: [UInt8], count: Int, limits: JSONParser.Limits) throws(JSONParser.Error) {
        let object = try text.withUnsafeBufferPointer { (buffer) throws(JSONParser.Error) in
            try JSONValidator.validateObject(UnsafeBufferPointer(rebasing: buffer[0..<count]), limits: limits)
        }
        self.text = text
        self.textCount = count
        self.members = object.members
        self.presence = object.presence
        self.depth = object.depth
    }

    /// Validates `text` as a JSON object under `limits` (the Firebase emulator's payloads).
    package init(validating text: [UInt8], limits: JSONParser.Limits) throws(JSONParser.Error) {
        try self.init(validating: text, count: text.count, limits: limits)
    }

    /// The members of `dictionary` (serialized, then read back as any text is; a number JSON
    /// cannot hold, NaN or an infinity, reads back as `null`).
    package init(_ dictionary: [String: JSONValue]) {
        let text = JSONSerializer.bytes(.object(dictionary))
        // The serializer writes valid JSON with unique names, and no limit is imposed here:
        // only a text beyond 2 GiB could fail.
        let unlimited = JSONParser.Limits(maxBytes: .max, maxDepth: .max)
        do {
            self = try JSONMembers(validating: text, count: text.count, limits: unlimited)
        } catch {
            self = .empty
        }
    }

    /// No member.
    package static let empty = JSONMembers(text: Array("{}".utf8))

    private init(text: [UInt8]) {
        self.text = text
        self.textCount = text.count
        self.members = []
        self.presence = 0
        self.depth = 1
    }

    /// The number of members.
    package var count: Int { members.count }

    /// The member names, in the order the text lists them.
    package var names: [String] {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            return members.map { JSONText.string(base + Int($0.nameStart), count: Int($0.nameCount), escaped: $0.nameEscaped) }
        }
    }

    /// The value of the member `name` (exact bytes), built; `nil` when absent.
    public subscript(name: String) -> JSONValue? {
        guard let member = member(named: name) else { return nil }
        return value(of: member)
    }

    /// Whether the member `name` (exact bytes) is present.
    package func contains(_ name: String) -> Bool { member(named: name) != nil }

    /// Every member, built: a `[String: JSONValue]`.
    package var dictionary: [String: JSONValue] {
        var all = [String: JSONValue](minimumCapacity: members.count)
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let reader = JSONText(base: base, count: textCount)
            for member in members {
                var position = Int(member.valueStart) - (member.kind == .string ? 1 : 0)
                all[JSONText.string(base + Int(member.nameStart), count: Int(member.nameCount), escaped: member.nameEscaped)] =
                    reader.value(at: &position)
            }
        }
        return all
    }

    /// The object, built: `.object(dictionary)`.
    package var jsonValue: JSONValue { .object(dictionary) }
}

extension JSONMembers: ExpressibleByDictionaryLiteral {
    /// Members written as a literal: `["acr": "phr", "amr": ["hwk"]]`.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONMembers: Hashable, CustomStringConvertible {
    /// Equal when they hold the same members with equal values, whatever the text's order
    /// and spacing.
    public static func == (lhs: JSONMembers, rhs: JSONMembers) -> Bool { lhs.dictionary == rhs.dictionary }

    /// Hashes the members, as `==` compares them.
    public func hash(into hasher: inout Hasher) { hasher.combine(dictionary) }

    /// The members as compact JSON with sorted names.
    public var description: String { JSONSerializer.string(jsonValue) }
}

// MARK: - Typed reads for the rules and the verified-token types

extension JSONMembers {
    /// The registered member `name`, if present.
    func member(_ name: JSONName) -> JSONMember? {
        guard presence & name.bit != 0 else { return nil }
        for member in members where member.name == name { return member }
        return nil
    }

    /// The member spelled `name` (exact bytes, decoded), if present.
    func member(named name: String) -> JSONMember? {
        let registered = JSONName.classify(name)
        if registered != .other { return member(registered) }
        var name = name
        return name.withUTF8 { wanted in
            text.withUnsafeBufferPointer { buffer -> JSONMember? in
                guard let base = buffer.baseAddress else { return nil }
                for member in members where member.name == .other {
                    if JSONText.decodedEqual(base + Int(member.nameStart), Int(member.nameCount), member.nameEscaped, wanted) {
                        return member
                    }
                }
                return nil
            }
        }
    }

    /// The member's value, built.
    func value(of member: JSONMember) -> JSONValue {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .null }
            var position = Int(member.valueStart) - (member.kind == .string ? 1 : 0)
            return JSONText(base: base, count: textCount).value(at: &position)
        }
    }

    /// The registered member `name` when it is a string; `nil` when absent,
    /// ``FederateError/Code/invalidClaim`` when it is another type.
    func stringMember(_ name: JSONName) throws(FederateError) -> JSONMember? {
        guard let member = member(name) else { return nil }
        guard member.kind == .string else { throw FederateError(.invalidClaim, "'\(name.text)' is not a string") }
        return member
    }

    /// The string member's value.
    func string(_ member: JSONMember) -> String {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return "" }
            return JSONText.string(base + Int(member.valueStart), count: Int(member.valueCount), escaped: member.valueEscaped)
        }
    }

    /// The registered member `name` when it is a string, built; `nil` when absent or of another type.
    func stringValue(_ name: JSONName) -> String? {
        guard let member = member(name), member.kind == .string else { return nil }
        return string(member)
    }

    /// Calls `body` with the bytes the string member stands for (its text when it has no
    /// escapes: nothing is copied).
    func withStringBytes<Result>(_ member: JSONMember, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            let start = base + Int(member.valueStart)
            guard member.valueEscaped else { return body(UnsafeBufferPointer(start: start, count: Int(member.valueCount))) }
            return JSONText.decodedBytes(start, count: Int(member.valueCount)).withUnsafeBufferPointer(body)
        }
    }

    /// The string member's length in UTF-8 bytes, decoded.
    func utf8Count(_ member: JSONMember) -> Int {
        member.valueEscaped ? withStringBytes(member) { $0.count } : Int(member.valueCount)
    }

    /// The registered member `name` read as a `NumericDate`; `nil` when absent,
    /// ``FederateError/Code/invalidClaim`` when it is not a finite JSON number in 0…2^53.
    func numericDate(_ name: JSONName) throws(FederateError) -> NumericDate? {
        guard let member = member(name) else { return nil }
        return try numericDate(member, named: name.text)
    }

    /// The member read as a `NumericDate`; ``FederateError/Code/invalidClaim`` (naming
    /// `name`) when it is not a finite JSON number in 0…2^53.
    func numericDate(_ member: JSONMember, named name: String) throws(FederateError) -> NumericDate {
        guard member.kind == .number, let date = numericDateValue(member) else {
            throw FederateError(.invalidClaim, "'\(name)' is not a NumericDate (a finite JSON number from 0 to 2^53)")
        }
        return date
    }

    /// The registered member `name` read as a `NumericDate` when it is one; `nil` otherwise
    /// (for the typed readers of a token its rules already accepted).
    func numericDateValue(_ name: JSONName) -> NumericDate? {
        guard let member = member(name), member.kind == .number else { return nil }
        return numericDateValue(member)
    }

    /// The number member as a `NumericDate` when it is one. The time rules read three on every
    /// token, nearly always whole seconds: a run of at most 15 digits is read at once (below
    /// 10^15 < 2^53, it is always a NumericDate); any other number is read as every number is.
    private func numericDateValue(_ member: JSONMember) -> NumericDate? {
        if member.valueCount <= 15, let seconds = wholeNumber(member) { return NumericDate(secondsSince1970: Double(seconds)) }
        return numberValue(member).flatMap(NumericDate.init(json:))
    }

    /// The number member's value when its text is digits only; `nil` for a sign, a fraction
    /// or an exponent. The caller bounds the length (the validation pass refused leading zeros).
    private func wholeNumber(_ member: JSONMember) -> Int64? {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            let digits = UnsafeBufferPointer(start: base + Int(member.valueStart), count: Int(member.valueCount))
            var value: Int64 = 0
            for character in digits {
                let digit = character &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
    }

    /// The number member's value.
    func numberValue(_ member: JSONMember) -> JSONValue? {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return JSONText.number(base + Int(member.valueStart), count: Int(member.valueCount))
        }
    }

    /// Calls `body` with a reader of the text (arrays and objects are read in place); `nil`
    /// when `body` answers `nil` (or for no text at all: a validated object is at least `{}`).
    func withText<Result>(_ body: (JSONText) -> Result?) -> Result? {
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return body(JSONText(base: base, count: textCount))
        }
    }
}
