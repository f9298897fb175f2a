import Federate

/// The cookies Federate's routes set, with their names and attributes in one place.
///
/// Over HTTPS the session and CSRF cookies carry the `__Host-` prefix (RFC 6265bis §4.1.3.2):
/// the browser then accepts them only with `Secure`, `Path=/` and no `Domain`, so a sibling
/// subdomain cannot plant or overwrite them. On loopback HTTP (development) the plain names
/// are used, since `__Host-` needs `Secure`.
enum SessionCookies {
    /// The session cookie's name: `__Host-federate_session` over HTTPS, else `federate_session`.
    static func sessionName(secure: Bool) -> String { secure ? "__Host-federate_session" : "federate_session" }
    /// The CSRF cookie's name: `__Host-federate_csrf` over HTTPS, else `federate_csrf`.
    static func csrfName(secure: Bool) -> String { secure ? "__Host-federate_csrf" : "federate_csrf" }
    /// The prefix of the pending-authorization cookies, one per flow in progress.
    static let pendingPrefix = "federate_pending_"
    /// How many flows one browser may have in progress per provider; starting another
    /// evicts the oldest.
    static let maximumPendingFlows = 4

    /// The cookie name of the flow whose `state` is `state`: the prefix and 16 characters of
    /// the base64url SHA-256 of the state (the state itself, a secret, never names a cookie).
    static func pendingName(state: String) -> String {
        pendingPrefix + TokenHash.compute(state, algorithm: .rs256).prefix(16)
    }

    /// The session cookie for `token`, valid `maxAge` seconds (HttpOnly, SameSite=Lax).
    static func session(_ token: String, maxAge: Int, secure: Bool) -> SetCookie {
        SetCookie(
            name: sessionName(secure: secure), value: token, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// Deletes the session cookie.
    static func deletingSession(secure: Bool) -> SetCookie {
        SetCookie(name: sessionName(secure: secure), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// A pending-authorization cookie: ten minutes, callback path only. `SameSite=Lax`, except
    /// for a provider that answers with a cross-site `form_post` (Apple), which a Lax cookie
    /// would not accompany: then over HTTPS it is `SameSite=None; Secure` (the `state` check,
    /// bound to this sealed value, is the callback's CSRF protection).
    static func pending(_ sealed: String, state: String, path: String, secure: Bool, formPost: Bool) -> SetCookie {
        SetCookie(
            name: pendingName(state: state), value: sealed, maxAge: 600, path: path, secure: secure, httpOnly: true,
            sameSite: pendingSameSite(secure: secure, formPost: formPost))
    }

    /// Deletes a pending cookie (its attributes must match the ones it was set with).
    static func deletingPending(name: String, path: String, secure: Bool, formPost: Bool) -> SetCookie {
        SetCookie(
            name: name, value: "", maxAge: 0, path: path, secure: secure, httpOnly: true,
            sameSite: pendingSameSite(secure: secure, formPost: formPost))
    }

    private static func pendingSameSite(secure: Bool, formPost: Bool) -> SetCookie.SameSite {
        secure && formPost ? .none : .lax
    }

    /// The merge-ticket cookie's name: `__Host-federate_merge` over HTTPS, else `federate_merge`.
    static func mergeTicketName(secure: Bool) -> String { secure ? "__Host-federate_merge" : "federate_merge" }

    /// The merge ticket of a link refused with `credential_already_in_use`, for `POST /me/merge`:
    /// HttpOnly, SameSite=Lax, for `maxAge` seconds (the ticket's lifetime; `0` deletes it).
    static func mergeTicket(_ ticket: String, maxAge: Int, secure: Bool) -> SetCookie {
        SetCookie(
            name: mergeTicketName(secure: secure), value: ticket, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The cookie keeping what RP-initiated logout needs: the session's ID token, sealed
    /// (AES-256-GCM, the sealer's keys) and bound to the session's ID. Sent only to the
    /// sign-out routes (path `{auth}/signout`); HttpOnly. Not `__Host-` (that needs `Path=/`):
    /// a planted one does not open, or names another session, and is ignored.
    static let logoutHintName = "federate_logout_hint"
    /// The cookie holding the `state` of a sign-out at the provider until the browser returns
    /// to `{auth}/signout/callback` (sealed, ten minutes, path `{auth}/signout`).
    static let signOutStateName = "federate_signout_state"
    /// The largest sealed value kept in a cookie (an ID token too large for it is not kept:
    /// sign-out then sends `client_id` without `id_token_hint`).
    static let maximumCookieValueBytes = 3800

    /// A sealed cookie for the sign-out routes under `path`: HttpOnly, `SameSite=Lax` (the
    /// provider sends the browser back with a top-level GET), `maxAge` seconds (0 deletes it).
    static func signOutCookie(name: String, value: String, path: String, maxAge: Int, secure: Bool) -> SetCookie {
        SetCookie(name: name, value: value, maxAge: maxAge, path: path, secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The CSRF token cookie: readable by the page's script (not HttpOnly), which repeats it
    /// in the `X-CSRF-Token` header.
    static func csrf(_ token: String, secure: Bool) -> SetCookie {
        SetCookie(name: csrfName(secure: secure), value: token, path: "/", secure: secure, httpOnly: false, sameSite: .strict)
    }

    /// The pending-authorization cookies a request carries, by name, first value of a name only.
    static func pendingFlows(in request: ServerRequest) -> [(name: String, value: String)] {
        request.cookies(prefixed: pendingPrefix)
    }
}
