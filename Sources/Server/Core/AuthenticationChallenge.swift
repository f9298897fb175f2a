/// One `WWW-Authenticate` challenge (RFC 9110 §11.6.1): a scheme and its parameters, rendered
/// here for every challenge Federate's server logic sends (``BearerChallenge``,
/// ``StepUpChallenge``), so quoting and `resource_metadata` (RFC 9728 §5.1) are written once.
struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme: `Bearer`, `DPoP`.
    var scheme: String
    /// The parameters, in order; each `value` is rendered as a quoted string unless `quoted` is false.
    var parameters: [Parameter]

    /// One auth-param.
    struct Parameter: Sendable, Hashable {
        /// The name.
        var name: String
        /// The value.
        var value: String
        /// Whether the value is sent as a quoted-string (else as a token: digits, for `max_age`).
        var quoted: Bool

        /// Creates a parameter.
        init(_ name: String, _ value: String, quoted: Bool = true) {
            self.name = name
            self.value = value
            self.quoted = quoted
        }
    }

    /// Creates a challenge.
    init(scheme: String, parameters: [Parameter] = []) {
        self.scheme = scheme
        self.parameters = parameters
    }

    /// The field value: `Bearer error="invalid_token", resource_metadata="https://…"`. Quoted
    /// values keep to RFC 6750 §3's character set, `%x20-21 / %x23-5B / %x5D-7E`: `"`, `\` and
    /// anything outside printable ASCII are dropped, so no value can end the string or the field.
    var headerValue: String {
        guard !parameters.isEmpty else { return scheme }
        let rendered = parameters.map { parameter in
            parameter.quoted
                ? "\(parameter.name)=\"\(Self.quoted(parameter.value))\""
                : "\(parameter.name)=\(Self.quoted(parameter.value).filter { $0 != " " && $0 != "," })"
        }
        return scheme + " " + rendered.joined(separator: ", ")
    }

    /// A quoted-string's content: only RFC 6750's `%x20-21 / %x23-5B / %x5D-7E`.
    static func quoted(_ value: String) -> String {
        String(
            String.UnicodeScalarView(
                value.unicodeScalars.filter { scalar in
                    let v = scalar.value
                    return v == 0x20 || v == 0x21 || (0x23...0x5B).contains(v) || (0x5D...0x7E).contains(v)
                }))
    }
}
