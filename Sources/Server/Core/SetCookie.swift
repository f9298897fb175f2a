/// A cookie to set (RFC 6265 §4.1), rendered once for every integration: its name and value
/// come from Federate (cookie names, base64url sealed values, tokens), never from a request.
struct SetCookie: Sendable, Hashable {
    /// `SameSite`.
    enum SameSite: String, Sendable, Hashable {
        /// Sent on same-site requests and top-level cross-site navigations.
        case lax = "Lax"
        /// Sent on same-site requests only.
        case strict = "Strict"
        /// Sent on every request (needs `Secure`).
        case none = "None"
    }

    /// The name.
    var name: String
    /// The value.
    var value: String
    /// `Max-Age` in seconds (`0` deletes the cookie); `nil` for a session cookie.
    var maxAge: Int?
    /// `Path`.
    var path: String
    /// `Secure`.
    var secure: Bool
    /// `HttpOnly`.
    var httpOnly: Bool
    /// `SameSite`.
    var sameSite: SameSite

    /// Creates a cookie.
    init(
        name: String, value: String, maxAge: Int? = nil, path: String = "/", secure: Bool, httpOnly: Bool = true, sameSite: SameSite = .lax
    ) {
        self.name = name
        self.value = value
        self.maxAge = maxAge
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// The `Set-Cookie` field value: `NAME=VALUE; Max-Age=N; Path=P; Secure; HttpOnly; SameSite=Lax`.
    var headerValue: String {
        var text = name + "=" + value
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        text += "; Path=" + path
        if secure { text += "; Secure" }
        if httpOnly { text += "; HttpOnly" }
        text += "; SameSite=" + sameSite.rawValue
        return text
    }
}
