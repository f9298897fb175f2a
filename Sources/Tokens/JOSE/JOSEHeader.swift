/// The protected header of a compact JWS.
///
/// Validated once when the token is parsed, by the same pass as every JSON Federate reads,
/// and kept as its text (`members`): `alg`, `kid` and `typ` are read then; any other member
/// is built as a ``JSONValue`` only when asked for.
package struct JOSEHeader: Sendable, Equatable {
    /// The header's parts, read once: one reference, so passing a header on costs one retain.
    private final class Storage: Sendable {
        let algorithmName: String
        let algorithm: JWSAlgorithm?
        let keyID: String?
        let type: String?
        let members: JSONMembers

        init(algorithmName: String, keyID: String?, type: String?, members: JSONMembers) {
            self.algorithmName = algorithmName
            self.algorithm = JWSAlgorithm(rawValue: algorithmName)
            self.keyID = keyID
            self.type = type
            self.members = members
        }
    }

    private let storage: Storage

    /// The `alg` value exactly as written.
    package var algorithmName: String { storage.algorithmName }
    /// The algorithm, if it is one Federate implements. `none` and unknown names give `nil`.
    package var algorithm: JWSAlgorithm? { storage.algorithm }
    /// `kid`, if present.
    package var keyID: String? { storage.keyID }
    /// `typ`, if present.
    public var type: String? { storage.type }
    /// All header members.
    package var members: JSONMembers { storage.members }

    /// Equal when they hold the same members with equal values.
    public static func == (lhs: JOSEHeader, rhs: JOSEHeader) -> Bool { lhs.storage === rhs.storage || lhs.members == rhs.members }

    /// Whether the header carries key material or key locations (`jwk`, `jku`, `x5u`, `x5c`).
    /// Federate never uses them to find a key; this is informational.
    var carriesEmbeddedKeyReference: Bool {
        members.presence & (JSONName.jwk.bit | JSONName.jku.bit | JSONName.x5u.bit | JSONName.x5c.bit) != 0
    }

    /// The header parameters whose semantics Federate understands when listed in `crit`.
    /// None yet: any `crit` entry makes a token unacceptable (RFC 7515 §4.1.11).
    static let understoodCriticalParameters: Set<String> = []

    /// Validates and wraps a header object given as values (tests, the Firebase emulator).
    package init(members: [String: JSONValue]) throws(FederateError) {
        try self.init(validated: JSONMembers(members))
    }

    /// Decodes a header segment given as text (the Firebase emulator's unsigned tokens) and
    /// validates it under `limits`.
    package init(segment: String, limits: JWSLimits) throws(FederateError) {
        let bytes = Array(segment.utf8)
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(FederateError) in try JOSEHeader(segment: buffer, limits: limits) }
    }

    /// Decodes a header segment (canonical base64url of a JSON object) and validates it
    /// under `limits`. Throws ``FederateError/Code/malformedToken`` or
    /// ``FederateError/Code/unsupportedCriticalHeader``.
    init(segment: UnsafeBufferPointer<UInt8>, limits: JWSLimits) throws(FederateError) {
        try self.init(validated: try Self.members(segment: segment, limits: limits.json))
    }

    /// The JSON object a header segment holds, validated under `limits`, before the header
    /// rules. ``FederateError/Code/malformedToken`` when it is not one.
    static func members(segment: UnsafeBufferPointer<UInt8>, limits: JSONParser.Limits) throws(FederateError) -> JSONMembers {
        guard let bytes = Base64URL.decode(bytes: segment) else {
            throw FederateError(.malformedToken, "the header is not canonical base64url")
        }
        do {
            return try JSONMembers(validating: bytes, count: bytes.count, limits: limits)
        } catch {
            throw FederateError(.malformedToken, "the header is not a JSON object (\(error))")
        }
    }

    /// The header rules on a validated object: a string `alg`; `kid` and `typ` strings when
    /// present; `crit` a non-empty array of strings, each understood.
    init(validated members: JSONMembers) throws(FederateError) {
        guard let alg = members.member(.alg), alg.kind == .string else {
            throw FederateError(.malformedToken, "header has no string 'alg'")
        }
        var keyID: String?
        if let kid = members.member(.kid) {
            guard kid.kind == .string else { throw FederateError(.malformedToken, "header 'kid' is not a string") }
            keyID = members.string(kid)
        }
        var type: String?
        if let typ = members.member(.typ) {
            guard typ.kind == .string else { throw FederateError(.malformedToken, "header 'typ' is not a string") }
            type = members.string(typ)
        }
        if let crit = members.member(.crit) {
            try Self.checkCritical(crit, in: members)
        }
        self.storage = Storage(algorithmName: members.string(alg), keyID: keyID, type: type, members: members)
    }

    /// `crit` (RFC 7515 §4.1.11): a non-empty array of strings, each one Federate understands.
    private static func checkCritical(_ crit: JSONMember, in members: JSONMembers) throws(FederateError) {
        guard crit.kind == .array else { throw FederateError(.malformedToken, "header 'crit' must be a non-empty array") }
        // Each entry: `nil` when it is not a string, else its name.
        let entries =
            members.withText { text -> [String?] in
                var elements = JSONText.Elements(text, arrayAt: Int(crit.valueStart))
                var entries: [String?] = []
                while let element = elements.next() {
                    entries.append(
                        text.base[element] == UInt8(ascii: "\"")
                            ? text.withString(at: element) { String(decoding: $0, as: UTF8.self) } : nil)
                }
                return entries
            } ?? []
        guard !entries.isEmpty else { throw FederateError(.malformedToken, "header 'crit' must be a non-empty array") }
        for entry in entries {
            guard let name = entry else { throw FederateError(.malformedToken, "header 'crit' entries must be strings") }
            guard understoodCriticalParameters.contains(name) else {
                throw FederateError(.unsupportedCriticalHeader, "critical header parameter '\(name)' is not understood")
            }
        }
    }
}

extension JWSLimits {
    /// The JSON limits of a token's header and payload.
    var json: JSONParser.Limits { JSONParser.Limits(maxBytes: maxTokenBytes, maxDepth: maxJSONDepth) }
}
