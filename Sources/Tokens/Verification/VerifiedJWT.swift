/// A JWT whose signature verified and whose claims passed its kind's rules; also what each
/// ``ClaimRule`` reads while the rules run.
///
/// It keeps the payload as its bytes (``claims``), indexed by the validation pass: a claim is
/// read from the text when asked for, and verifying a token builds no dictionary. The readers
/// below are the one place a claim's JSON type is checked: a present claim of the wrong type
/// is ``FederateError/Code/invalidClaim`` and an absent required one
/// ``FederateError/Code/missingClaim``, both naming the claim. Names are compared as exact
/// bytes; the registered claims (`iss`, `sub`, `aud`, `exp`, `iat`, …) are found at once.
public struct VerifiedJWT: Sendable {
    /// The protected header.
    package let header: JOSEHeader
    /// Every claim of the payload, as sent.
    public let claims: JSONMembers
    /// The algorithm that verified the signature.
    package let algorithm: JWSAlgorithm
    /// The `kid` of the verifying key, if it had one.
    package let keyID: String?

    /// Wraps a verified payload.
    package init(header: JOSEHeader, claims: JSONMembers, algorithm: JWSAlgorithm, keyID: String?) {
        self.header = header
        self.claims = claims
        self.algorithm = algorithm
        self.keyID = keyID
    }

    /// Wraps claims given as values (a test, a check of your own on a payload you verified).
    package init(header: JOSEHeader, claims: [String: JSONValue], algorithm: JWSAlgorithm, keyID: String?) {
        self.init(header: header, claims: JSONMembers(claims), algorithm: algorithm, keyID: keyID)
    }

    /// The claim `name`, if present.
    package subscript(name: String) -> JSONValue? { claims[name] }

    /// The string claim `name`; `nil` when absent, ``FederateError/Code/invalidClaim`` when not a string.
    public func string(_ name: String) throws(FederateError) -> String? {
        guard let member = claims.member(named: name) else { return nil }
        guard member.kind == .string else { throw FederateError(.invalidClaim, "'\(name)' is not a string") }
        return claims.string(member)
    }

    /// The string claim `name`; ``FederateError/Code/missingClaim`` when absent.
    package func requiredString(_ name: String) throws(FederateError) -> String {
        guard let text = try string(name) else { throw FederateError(.missingClaim, "required claim '\(name)' is missing") }
        return text
    }

    /// The time claim `name` (`NumericDate`); `nil` when absent, ``FederateError/Code/invalidClaim``
    /// when it is not a finite number in 0…2^53.
    func numericDate(_ name: String) throws(FederateError) -> NumericDate? {
        guard let member = claims.member(named: name) else { return nil }
        return try claims.numericDate(member, named: name)
    }

    /// The time claim `name`; ``FederateError/Code/missingClaim`` when absent.
    package func requiredNumericDate(_ name: String) throws(FederateError) -> NumericDate {
        guard let date = try numericDate(name) else { throw FederateError(.missingClaim, "required claim '\(name)' is missing") }
        return date
    }

    /// `aud` as a list: a string, or a non-empty array of strings (RFC 7519 §4.1.3). `nil`
    /// when absent; ``FederateError/Code/invalidClaim`` for any other shape or a non-string entry.
    public func audiences() throws(FederateError) -> [String]? {
        var list: [String] = []
        let shape = try audienceMatch { bytes in
            list.append(String(decoding: bytes, as: UTF8.self))
            return false
        }
        return shape == nil ? nil : list
    }
}

// MARK: - The registered claims, typed, as the rules read them

extension VerifiedJWT {
    /// The registered string claim `name`; `nil` when absent, ``FederateError/Code/invalidClaim``
    /// when another type.
    func string(_ name: JSONName) throws(FederateError) -> String? {
        try claims.stringMember(name).map(claims.string)
    }

    /// The registered time claim `name`; `nil` when absent, ``FederateError/Code/invalidClaim``
    /// when not a `NumericDate`.
    func numericDate(_ name: JSONName) throws(FederateError) -> NumericDate? {
        try claims.numericDate(name)
    }

    /// The registered time claim `name`; ``FederateError/Code/missingClaim`` when absent.
    func requiredNumericDate(_ name: JSONName) throws(FederateError) -> NumericDate {
        guard let date = try claims.numericDate(name) else {
            throw FederateError(.missingClaim, "required claim '\(name.text)' is missing")
        }
        return date
    }

    /// Whether the registered string claim `name` is present and its bytes satisfy `test`;
    /// `nil` when absent, ``FederateError/Code/invalidClaim`` when another type. Reads the
    /// text in place: nothing is built.
    func string(_ name: JSONName, satisfies test: (UnsafeBufferPointer<UInt8>) -> Bool) throws(FederateError) -> Bool? {
        guard let member = try claims.stringMember(name) else { return nil }
        return claims.withStringBytes(member, test)
    }

    /// `aud` checked as ``audiences()`` checks it, without building the list: how many values
    /// it holds and whether one satisfies `predicate`; `nil` when absent. The claim rules call
    /// this on every token.
    func audienceMatch(_ predicate: (UnsafeBufferPointer<UInt8>) -> Bool) throws(FederateError) -> (count: Int, matched: Bool)? {
        guard let aud = claims.member(.aud) else { return nil }
        switch aud.kind {
        case .string:
            return (1, claims.withStringBytes(aud, predicate))
        case .array:
            let shape = claims.withText { text -> (count: Int, matched: Bool)? in
                var elements = JSONText.Elements(text, arrayAt: Int(aud.valueStart))
                var count = 0
                var matched = false
                while let element = elements.next() {
                    guard text.base[element] == UInt8(ascii: "\"") else { return nil }
                    count += 1
                    if !matched { matched = text.withString(at: element, predicate) }
                }
                return (count, matched)
            }
            guard let shape else { throw FederateError(.invalidClaim, "'aud' entries must be strings") }
            guard shape.count > 0 else { throw FederateError(.invalidClaim, "'aud' is an empty array") }
            return shape
        default:
            throw FederateError(.invalidClaim, "'aud' is neither a string nor an array of strings")
        }
    }

    /// `aud` as strings (for ``IDToken/audiences``): empty when absent or of another shape.
    var audienceList: [String] { (try? audiences()) ?? [] }
}

/// A claim name a rule reads on every token, classified once when the rule is made.
struct ClaimKey: Sendable {
    /// The name.
    let name: String
    /// Its registered name, or ``JSONName/other``.
    let registered: JSONName

    init(_ name: String) {
        self.name = name
        self.registered = JSONName.classify(name)
    }
}

extension JSONMembers {
    /// The member `key` names, if present.
    func member(_ key: ClaimKey) -> JSONMember? {
        key.registered == .other ? member(named: key.name) : member(key.registered)
    }

    /// Whether the member `key` names is present.
    func contains(_ key: ClaimKey) -> Bool { member(key) != nil }
}

extension VerifiedJWT {
    /// Whether the string claim `key` names is present and its bytes satisfy `test`; `nil`
    /// when absent, ``FederateError/Code/invalidClaim`` when another type.
    func string(_ key: ClaimKey, satisfies test: (UnsafeBufferPointer<UInt8>) -> Bool) throws(FederateError) -> Bool? {
        guard let member = claims.member(key) else { return nil }
        guard member.kind == .string else { throw FederateError(.invalidClaim, "'\(key.name)' is not a string") }
        return claims.withStringBytes(member, test)
    }
}
