/// A `Set-Cookie` header value, built with explicit attributes.
public struct SetCookie: Sendable, Hashable, CustomStringConvertible {
    /// The `SameSite` attribute.
    public enum SameSite: String, Sendable, Hashable {
        /// Sent on same-site requests only.
        case strict = "Strict"
        /// Also sent on top-level cross-site GET navigations (the default for sessions).
        case lax = "Lax"
        /// Sent cross-site too; browsers require `Secure` with it.
        case none = "None"
    }

    /// The cookie's name.
    public var name: String
    /// The value (already safe for a cookie: base64url or similar).
    public var value: String
    /// `Path`.
    public var path: String
    /// `Max-Age` in seconds; 0 deletes the cookie; `nil` makes a session cookie.
    public var maxAge: Int?
    /// `HttpOnly`.
    public var httpOnly: Bool
    /// `Secure`.
    public var secure: Bool
    /// `SameSite`.
    public var sameSite: SameSite

    /// Creates a cookie.
    public init(name: String, value: String, path: String = "/", maxAge: Int? = nil, httpOnly: Bool = true, secure: Bool = true, sameSite: SameSite = .lax) {
        self.name = name
        self.value = value
        self.path = path
        self.maxAge = maxAge
        self.httpOnly = httpOnly
        self.secure = secure
        self.sameSite = sameSite
    }

    /// A cookie that deletes `name` at `path`.
    public static func deleting(_ name: String, path: String = "/", secure: Bool = true, sameSite: SameSite = .lax) -> SetCookie {
        SetCookie(name: name, value: "", path: path, maxAge: 0, secure: secure, sameSite: sameSite)
    }

    /// The header value.
    public var description: String {
        var parts = ["\(name)=\(value)", "Path=\(path)"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if httpOnly { parts.append("HttpOnly") }
        if secure { parts.append("Secure") }
        parts.append("SameSite=\(sameSite.rawValue)")
        return parts.joined(separator: "; ")
    }
}

/// The cookies a request carries (its `Cookie` headers).
public struct RequestCookies: Sendable {
    private let values: [String: String]

    /// Parses `Cookie` header values. A name sent twice keeps its first value (the most
    /// specific path, as browsers order them).
    public init(headers: [String]) {
        var values: [String: String] = [:]
        for header in headers {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                let name = String(trimmed[..<equals])
                if values[name] == nil { values[name] = String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        self.values = values
    }

    /// The value of `name` (byte for byte), if sent.
    public subscript(name: String) -> String? { values.first { $0.key.exactlyEquals(name) }?.value }

    /// Every cookie sent, by name.
    public var all: [(name: String, value: String)] { values.map { ($0.key, $0.value) } }
}
