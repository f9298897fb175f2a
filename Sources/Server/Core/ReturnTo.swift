/// Where to send the browser after a sign-in: only a path on this server, never another
/// origin (no open redirect).
enum ReturnTo {
    /// `value` when it is a same-origin absolute path, else `fallback`.
    ///
    /// Refused: anything not starting with exactly one `/` (so `//evil.example`, `/\evil`,
    /// `https://…`, `javascript:…` and relative paths), a fragment (`#`: the callback's
    /// `error=…` would land after it, where the page reads it as its own), backslashes, control
    /// characters and whitespace anywhere (browsers strip or reinterpret them), and values over
    /// 2,048 bytes.
    static func sanitize(_ value: String?, fallback: String = "/") -> String {
        guard let value, value.utf8.count <= 2048, value.hasPrefix("/"), !value.hasPrefix("//") else { return fallback }
        for scalar in value.unicodeScalars {
            // `\` (0x5C) and `#` (0x23), control characters, DEL and whitespace.
            if scalar.value == 0x5C || scalar.value == 0x23 || scalar.value < 0x21 || scalar.value == 0x7F || scalar.properties.isWhitespace
            {
                return fallback
            }
        }
        return value
    }
}
