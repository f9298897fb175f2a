public import Federate
import Foundation
import HTTPTypes

extension FederateEndpoints {
    /// `POST {auth}/guest` (registered only with ``FederateServerConfiguration/allowsGuests``): a
    /// guest account (`AccountService/signInAsGuest()`) and its session cookie, for the guest's
    /// lifetime; `{"uid": UID, "guest": true}`. Same-site requests only (`Origin`, or `Referer`;
    /// else 403 `csrf_failed`), and refused (409 `already_signed_in`) while the browser holds a
    /// valid session: a cross-site page can neither create one nor replace a real session with
    /// it. A guest's later link through `{auth}/{provider}/start?intent=link` upgrades it in
    /// place and rotates the cookie to a full session.
    ///
    /// Bounded: per client (``FederateServerConfiguration/guestRateLimit``; 429 `rate_limited`
    /// with `Retry-After`), and in all (the account layer's cap on live guests; 503
    /// `guest_capacity_reached` with `Retry-After`).
    package func guest(_ request: ServerRequest) async -> ServerResponse {
        await respond {
            try checkAnonymous(request, limiter: guestLimiter, what: "guest accounts")
            // An invalid or expired session is replaced by the guest's; a store that cannot answer is 503.
            if try await currentSession(request) != nil {
                throw FederateHTTPError(.conflict, code: .alreadySignedIn, message: "this browser is signed in: sign out first")
            }
            let accounts = configuration.accounts
            let guest: GuestSignIn
            do throws(FederateError) {
                guest = try await accounts.signInAsGuest()
            } catch {
                // Full: 503, to be retried later, like a store that cannot answer.
                guard error.code == .guestCapacityReached else { throw error }
                throw FederateHTTPError(.serviceUnavailable, error, headers: [.retryAfter: "60"])
            }
            var response = ServerResponse.json(["uid": .string(guest.user.uid), "guest": true])
            let lifetime = max(0, Int(guest.session.expiresAt.timeIntervalSince(accounts.clock.now)))
            response.setCookie(SessionCookies.session(guest.sessionToken, maxAge: lifetime, secure: configuration.secureCookies))
            return response
        }
    }

    /// `POST /me/merge`, behind the session middleware (CSRF-checked like every `/me` change):
    /// when a link was refused with `credential_already_in_use`, the callback left the merge
    /// ticket in an HttpOnly cookie (`federate_merge`, `__Host-` over HTTPS, for the
    /// ticket's lifetime); this merges the ticket's other account into the session's
    /// (`AccountService/merge(ticket:into:)`), which needs a recent sign-in (403
    /// `requires_recent_login`): a guest signs in with the provider it tried to link, then posts
    /// here, and its data moves into that account. Answers `{"uid": TARGET, "merged_uid": SOURCE}`
    /// and clears the cookie; 400 `invalid_merge_ticket` without a ticket.
    package func merge(_ request: ServerRequest, session: AccountSession?) async -> ServerResponse {
        await respond {
            let session = try requireSession(session)
            let secure = configuration.secureCookies
            guard let ticket = request.cookie(SessionCookies.mergeTicketName(secure: secure)) else {
                throw FederateHTTPError(.badRequest, code: .invalidMergeTicket, message: "no merge in progress in this browser")
            }
            let merge = try await configuration.accounts.merge(ticket: ticket, into: session)
            var response = ServerResponse.json(["uid": .string(merge.targetUID), "merged_uid": .string(merge.sourceUID)])
            response.setCookie(SessionCookies.mergeTicket("", maxAge: 0, secure: secure))
            return response
        }
    }
}

extension FederateError.Code {
    /// `POST {auth}/guest` from a browser that already holds a valid session (answered 409): sign out first.
    public static let alreadySignedIn: Self = "already_signed_in"
    /// An anonymous route's limit per client was reached (answered 429 with `Retry-After`):
    /// `POST {auth}/guest` past `FederateServerConfiguration.guestRateLimit`, the passkey
    /// sign-in routes past `passkeyRateLimit`. Wait that long.
    public static let rateLimited: Self = "rate_limited"
}
