import Federate
import Foundation
import Hummingbird

/// Guests and merges, registered by ``FederateRoutes``:
///
/// - `POST {auth}/guest` (with ``FederateServerConfiguration/allowsGuests``): a guest account
///   (``AccountService/signInAsGuest()``) and its session cookie. Same-site requests only (`Origin`, or `Referer`), and refused (409
///   `already_signed_in`) while the browser holds a valid session: a cross-site page can
///   neither create one nor replace a real session with it. A guest's later link through
///   `/auth/{provider}/start?intent=link` upgrades it and rotates the cookie to a full session.
/// - `POST /me/merge`: when a link was refused with `credential_already_in_use`, the callback
///   left the merge ticket in an HttpOnly cookie (`federate_merge`, `__Host-` over HTTPS, for
///   the ticket's lifetime); this merges the ticket's other account into the session's
///   (``AccountService/merge(ticket:into:)``), which needs a recent sign-in (403
///   `requires_recent_login`): a guest signs in with the provider it tried to link, then
///   posts here, and its data moves into that account. CSRF-checked like every `/me` change.
///   Answers `{"uid": TARGET, "merged_uid": SOURCE}` and clears the cookie.
struct MergeRoutes<Context: FederateRequestContext>: Sendable {
    let configuration: FederateServerConfiguration

    /// The merge-ticket cookie's name: `__Host-federate_merge` over HTTPS, else `federate_merge`.
    static func ticketCookieName(secure: Bool) -> String { secure ? "__Host-federate_merge" : "federate_merge" }

    /// The merge-ticket cookie (HttpOnly, SameSite=Lax, for the ticket's lifetime).
    static func ticketCookie(_ ticket: String, maxAge: Duration, secure: Bool) -> Cookie {
        Cookie(
            name: ticketCookieName(secure: secure), value: ticket, maxAge: Int(maxAge.wholeSeconds), path: "/", secure: secure, httpOnly: true,
            sameSite: .lax)
    }

    func register(auth: RouterGroup<Context>, me: RouterGroup<Context>) {
        if configuration.allowsGuests { auth.post("guest") { request, _ in try await self.guest(request) } }
        me.post("merge") { request, context in try await self.merge(request, context: context) }
    }

    private func guest(_ request: Request) async throws -> Response {
        let claimed = request.headers[.origin] ?? request.headers[.referer].map(CSRFCheck.origin(ofURL:))
        guard let claimed, claimed.exactlyEquals(configuration.origin) else {
            throw FederateHTTPError(.forbidden, code: .csrfFailed, message: "the request does not come from this site (Origin/Referer)")
        }
        let accounts = configuration.accounts
        let secure = configuration.secureCookies
        if let token = request.cookies[SessionCookies.sessionName(secure: secure)]?.value {
            do {
                _ = try await accounts.verifySession(token)
                throw FederateHTTPError(.conflict, code: .alreadySignedIn, message: "this browser is signed in: sign out first")
            } catch let error as FederateError where StoreOutage.isStoreFailure(error) {
                throw FederateHTTPError(.serviceUnavailable, error)
            } catch let error as FederateError {
                _ = error  // an invalid or expired session: replaced by the guest's
            }
        }
        let guest = try await accounts.signInAsGuest()
        var response = Self.json(["uid": .string(guest.user.uid), "guest": true])
        let lifetime = max(0, Int(guest.session.expiresAt.timeIntervalSince(accounts.clock.now)))
        response.setCookie(SessionCookies.session(guest.sessionToken, maxAge: lifetime, secure: secure))
        return response
    }

    private func merge(_ request: Request, context: Context) async throws -> Response {
        guard let session = context.federate.session else {
            throw FederateHTTPError(.unauthorized, code: .sessionRequired, message: "sign in first")
        }
        let secure = configuration.secureCookies
        guard let ticket = request.cookies[Self.ticketCookieName(secure: secure)]?.value else {
            throw FederateHTTPError(.badRequest, code: .invalidMergeTicket, message: "no merge in progress in this browser")
        }
        let merge = try await configuration.accounts.merge(ticket: ticket, into: session)
        var response = Self.json(["uid": .string(merge.targetUID), "merged_uid": .string(merge.sourceUID)])
        response.setCookie(Cookie(name: Self.ticketCookieName(secure: secure), value: "", maxAge: 0, path: "/", secure: secure, httpOnly: true, sameSite: .lax))
        return response
    }

    private static func json(_ body: [String: JSONValue]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: JSONSerializer.bytes(.object(body)))))
    }
}

extension FederateError.Code {
    /// `POST {auth}/guest` from a browser that already holds a valid session (answered 409): sign out first.
    public static let alreadySignedIn: Self = "already_signed_in"
}
