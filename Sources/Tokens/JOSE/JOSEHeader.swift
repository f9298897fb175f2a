/// The protected header of a compact JWS.
public struct JOSEHeader: Sendable, Hashable {
    /// The `alg` value exactly as written.
    public let algorithmName: String
    /// `kid`, if present.
    public let keyID: String?
    /// `typ`, if present.
    public let type: String?
    /// Whether the header carries key material or key locations (`jwk`, `jku`, `x5u`, `x5c`).
    /// Federate never uses them to find a key; this is informational.
    public var carriesEmbeddedKeyReference: Bool { ["jwk", "jku", "x5u", "x5c"].contains { members[$0] != nil } }
    /// All header members.
    public let members: [String: JSONValue]

    /// The header parameters whose semantics Federate understands when listed in `crit`.
    /// None yet: any `crit` entry makes a token unacceptable (RFC 7515 §4.1.11).
    public static let understoodCriticalParameters: Set<String> = []

    /// Validates and wraps the decoded header object.
    package init(members: [String: JSONValue]) throws(FederateError) {
        guard case .string(let alg)? = members["alg"] else {
            throw FederateError(.malformedToken, "header has no string 'alg'")
        }
        var kid: String?
        if let value = members["kid"] {
            guard case .string(let s) = value else { throw FederateError(.malformedToken, "header 'kid' is not a string") }
            kid = s
        }
        var typ: String?
        if let value = members["typ"] {
            guard case .string(let s) = value else { throw FederateError(.malformedToken, "header 'typ' is not a string") }
            typ = s
        }
        if let crit = members["crit"] {
            guard case .array(let entries) = crit, !entries.isEmpty else {
                throw FederateError(.malformedToken, "header 'crit' must be a non-empty array")
            }
            for entry in entries {
                guard case .string(let name) = entry else {
                    throw FederateError(.malformedToken, "header 'crit' entries must be strings")
                }
                guard Self.understoodCriticalParameters.contains(name) else {
                    throw FederateError(.unsupportedCriticalHeader, "critical header parameter '\(name)' is not understood")
                }
            }
        }
        self.algorithmName = alg
        self.keyID = kid
        self.type = typ
        self.members = members
    }

    /// The algorithm, if it is one Federate implements. `none` and unknown names give `nil`.
    public var algorithm: JWSAlgorithm? { JWSAlgorithm(rawValue: algorithmName) }
}
