/// The cookies Federate's routes set, with their attributes in one place.
public enum SessionCookies {
    /// The session token (HttpOnly, SameSite=Lax, Secure except on loopback HTTP).
    public static let session = "federate_session"
    /// The sealed pending authorization of a flow in progress.
    public static let pending = "federate_pending"

    /// The session cookie for `token`, valid `maxAge` seconds.
    static func session(_ token: String, maxAge: Int, secure: Bool) -> SetCookie {
        SetCookie(name: session, value: token, maxAge: maxAge, httpOnly: true, secure: secure, sameSite: .lax)
    }

    /// The pending-authorization cookie. Apple POSTs its callback cross-site, which a
    /// `SameSite=Lax` cookie would not accompany: over HTTPS it is `SameSite=None; Secure`
    /// (the `state` check, bound to this sealed value, is the callback's CSRF protection). On
    /// loopback HTTP the provider is same-site and `Lax` works. Ten minutes, callback path only.
    static func pending(_ sealed: String, path: String, secure: Bool) -> SetCookie {
        SetCookie(name: pending, value: sealed, path: path, maxAge: 600, httpOnly: true, secure: secure, sameSite: secure ? .none : .lax)
    }

    /// The CSRF token cookie: readable by the page's script (not HttpOnly), which repeats it
    /// in the `X-CSRF-Token` header.
    static func csrf(_ token: String, secure: Bool) -> SetCookie {
        SetCookie(name: CSRFCheck.cookieName, value: token, httpOnly: false, secure: secure, sameSite: .strict)
    }
}
