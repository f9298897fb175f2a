/// Reads the hidden fields of an auto-submitting `form_post` page, as a browser would submit them.
public enum HTMLForm {
    /// The `name` → `value` pairs of `<input type="hidden" name="…" value="…">` elements.
    public static func hiddenFields(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(html)
        while let input = rest.range(of: "<input type=\"hidden\" name=\"") {
            rest = rest[input.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\""), let valueStart = rest.range(of: "value=\"") else { break }
            let name = String(rest[..<nameEnd])
            rest = rest[valueStart.upperBound...]
            guard let valueEnd = rest.firstIndex(of: "\"") else { break }
            fields[unescape(name)] = unescape(String(rest[..<valueEnd]))
            rest = rest[valueEnd...]
        }
        return fields
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
