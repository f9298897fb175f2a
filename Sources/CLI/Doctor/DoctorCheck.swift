import Federate

/// One finding of `federate doctor`: a stable identifier, a status, what was found, and what
/// Federate does about it. Its JSON keys (`id`, `status`, `message`, `federate`, and `code` and
/// `details` when present) are documented in Docs/CLI.md and stable.
struct DoctorCheck: Sendable {
    /// How a finding weighs. Only ``failure`` makes `federate doctor` exit 1.
    enum Status: String, Sendable, Comparable, CaseIterable {
        /// Nothing to do.
        case ok
        /// A quirk worth knowing; Federate copes with it (or the check could not be made).
        case warning
        /// Federate will not work with the provider as it is configured.
        case failure

        private var rank: Int {
            switch self {
            case .ok: return 0
            case .warning: return 1
            case .failure: return 2
            }
        }

        static func < (lhs: Status, rhs: Status) -> Bool { lhs.rank < rhs.rank }
    }

    /// A stable dotted identifier, e.g. `discovery.issuer` or `keys.kid`.
    let id: String
    /// The outcome.
    let status: Status
    /// What was found, in plain words.
    let message: String
    /// What Federate does about it, in plain words (checked against the code, not aspirational).
    let federate: String
    /// The Federate error code the finding came from (`discovery_issuer_mismatch`, …), if any.
    var code: String?
    /// Structured data (the keys of a key set, the algorithms), when the check has some.
    var details: JSONValue?

    /// Creates a finding.
    init(_ id: String, _ status: Status, _ message: String, federate: String, code: String? = nil, details: JSONValue? = nil) {
        self.id = id
        self.status = status
        self.message = message
        self.federate = federate
        self.code = code
        self.details = details
    }

    /// The finding as a JSON object.
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "status": .string(status.rawValue), "message": .string(message), "federate": .string(federate),
        ]
        if let code { object["code"] = .string(code) }
        if let details { object["details"] = details }
        return .object(object)
    }
}
