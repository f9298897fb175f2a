import Federate

/// Everything `federate doctor` found about one issuer, rendered as text or JSON.
struct DoctorReport: Sendable {
    /// The issuer examined, as given.
    let issuer: String
    /// The `--client-id`, if given.
    let clientID: String?
    /// The findings, in the order they were made.
    let checks: [DoctorCheck]

    /// The worst status of any check (`ok` when there are none).
    var result: DoctorCheck.Status { checks.map(\.status).max() ?? .ok }

    /// How many checks have `status`.
    func count(_ status: DoctorCheck.Status) -> Int { checks.filter { $0.status == status }.count }

    /// The report as one JSON object: `issuer`, `client_id` (or null), `result`, `summary`
    /// (`ok`, `warning`, `failure` counts) and `checks`.
    var json: JSONValue {
        .object([
            "issuer": .string(issuer),
            "client_id": clientID.map(JSONValue.string) ?? .null,
            "result": .string(result.rawValue),
            "summary": .object(
                Dictionary(uniqueKeysWithValues: DoctorCheck.Status.allCases.map { ($0.rawValue, JSONValue.integer(Int64(count($0)))) })),
            "checks": .array(checks.map(\.json)),
        ])
    }

    /// The report as human text: one block per check, then a summary line.
    var text: String {
        var out = "federate doctor \(DoctorText.clipped(issuer, limit: 200))"
        if let clientID { out += " --client-id \(DoctorText.clipped(clientID, limit: 200))" }
        out += "\n\n"
        for check in checks {
            let label: String
            switch check.status {
            case .ok: label = "ok     "
            case .warning: label = "WARNING"
            case .failure: label = "FAILURE"
            }
            out += "\(label) \(check.id): \(check.message)\n"
            out += "        ↳ \(check.federate)\n"
        }
        let warnings = count(.warning), failures = count(.failure)
        out +=
            "\n\(checks.count) checks: \(count(.ok)) ok, \(warnings) warning\(warnings == 1 ? "" : "s"), \(failures) failure\(failures == 1 ? "" : "s").\n"
        return out
    }
}
