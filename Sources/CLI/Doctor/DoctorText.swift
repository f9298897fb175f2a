/// Makes text that came from a provider safe to print: bounded, and with no control
/// characters (a hostile document could otherwise move the cursor or rewrite the terminal).
enum DoctorText {
    /// `text` with control and bidirectional-override characters replaced by `?`, cut to
    /// `limit` characters (an ellipsis marks the cut), and quoted.
    static func quoted(_ text: String, limit: Int = 120) -> String {
        "'" + clipped(text, limit: limit) + "'"
    }

    /// `text` with control and bidirectional-override characters replaced by `?`, cut to `limit` characters.
    static func clipped(_ text: String, limit: Int = 120) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result += "…"
                break
            }
            result.unicodeScalars.append(isUnsafe(scalar) ? "?" : scalar)
            count += 1
        }
        return result
    }

    /// A list of outside strings, each clipped, at most `maximum` of them (then "and N more").
    static func list(_ items: [String], maximum: Int = 12) -> String {
        if items.isEmpty { return "(none)" }
        var shown = items.prefix(maximum).map { clipped($0, limit: 60) }.joined(separator: ", ")
        if items.count > maximum { shown += " and \(items.count - maximum) more" }
        return shown
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional marks and overrides
        default: return false
        }
    }
}
