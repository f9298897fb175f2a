/// Text from outside (a provider's names, codes, descriptions, a user code) made safe to write
/// to a terminal: the one rule every place that prints such text uses (the `federate` tool,
/// `federate doctor`, an application's own console output).
///
/// A hostile string could otherwise clear the screen or rewrite earlier lines (C0 and C1
/// control characters: `ESC [2J`, the 8-bit CSI `U+009B`, OSC 8 hyperlinks), or show text
/// other than it holds (bidirectional overrides and isolates: U+202A–U+202E, U+2066–U+2069,
/// the marks U+200E, U+200F and U+061C), or flood it (one letter and 20,000 combining marks).
package enum TerminalText {
    /// `text` with every unsafe character (``isUnsafe(_:)``) replaced by `?`, cut at a
    /// character boundary so that it holds at most `maxBytes` UTF-8 bytes, `…` included when
    /// it was cut. `maxBytes` below 4 is read as 4.
    public static func sanitized(_ text: String, maxBytes: Int = 512) -> String {
        let limit = max(maxBytes, 4)
        var result = String.UnicodeScalarView()
        var bytes = 0
        // The text as it was at the last point that left room for the ellipsis (3 bytes).
        var cut: String.UnicodeScalarView?
        for scalar in text.unicodeScalars {
            let safe: Unicode.Scalar = isUnsafe(scalar) ? "?" : scalar
            let size = UTF8.width(safe)
            if cut == nil, bytes + size > limit - 3 { cut = result }
            bytes += size
            if bytes > limit {
                var shortened = cut ?? result
                shortened.append("\u{2026}")
                return String(shortened)
            }
            result.append(safe)
        }
        return String(result)
    }

    /// Whether a character must never reach a terminal as it is: C0 controls (U+0000–U+001F),
    /// DEL and C1 controls (U+007F–U+009F), the bidirectional marks, embeddings, overrides and
    /// isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the line and
    /// paragraph separators (U+2028, U+2029).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        case 0x2028, 0x2029: return true
        default: return false
        }
    }
}
