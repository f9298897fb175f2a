import Federate

/// Makes text that came from a provider safe to print in the doctor's report: through
/// `TerminalText`, the one rule for text bound for a terminal (bounded in bytes, control and
/// bidirectional characters replaced by `?`).
enum DoctorText {
    /// `text` made safe and cut to `limit` bytes (an ellipsis marks the cut), and quoted.
    static func quoted(_ text: String, limit: Int = 120) -> String {
        "'" + clipped(text, limit: limit) + "'"
    }

    /// `text` made safe and cut to `limit` bytes (an ellipsis marks the cut).
    static func clipped(_ text: String, limit: Int = 120) -> String {
        TerminalText.sanitized(text, maxBytes: limit)
    }

    /// A list of outside strings, each clipped, at most `maximum` of them (then "and N more").
    static func list(_ items: [String], maximum: Int = 12) -> String {
        if items.isEmpty { return "(none)" }
        var shown = items.prefix(maximum).map { clipped($0, limit: 60) }.joined(separator: ", ")
        if items.count > maximum { shown += " and \(items.count - maximum) more" }
        return shown
    }
}
