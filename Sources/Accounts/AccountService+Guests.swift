public import FederateTokens
import Foundation

/// A guest's sign-in (``AccountService/signInAsGuest()``).
///
/// Contains a secret (the session token): the `description` is redacted.
public struct GuestSignIn: Sendable, CustomStringConvertible {
    /// The new guest account.
    public let user: User
    /// Its session: a guest's (``AccountSession/isGuest``), ending no later than the guest.
    public let session: AccountSession
    /// The session token to hand to the client (secret).
    public let sessionToken: String

    /// Redacted.
    public var description: String { "GuestSignIn(uid: \(user.uid), session: \(session.sessionID), token redacted)" }
}

extension AccountService {
    /// Creates a guest account — no provider identity, no email — and its session, so a person
    /// can use the application before choosing a provider (Firebase's `signInAnonymously()`).
    ///
    /// ``link(_:with:authenticatedAfter:session:)`` upgrades the guest in place (same `uid`, same data) and issues a full
    /// session. Until then the guest's sessions are weak: ``requireRecentLogin(_:within:)``
    /// refuses them. A guest that never links expires `AccountServiceConfiguration.guestLifetime`
    /// after its creation (7 days by default): its sessions end then, it can no longer link,
    /// and ``pruneExpiredGuests(limit:)`` deletes it. Past `AccountServiceConfiguration`'s
    /// `maximumLiveGuests` guests alive at once, throws `guest_capacity_reached`.
    public func signInAsGuest() async throws(FederateError) -> GuestSignIn {
        let now = clock.now
        let alive = now.adding(.zero - configuration.guestLifetime)
        if try await storage.hasGuests(atLeast: max(1, configuration.maximumLiveGuests), createdAfter: alive) {
            throw FederateError(.guestCapacityReached, "the most guest accounts allowed at once exist: try again later, or sign in")
        }
        let user = User(
            uid: SecureRandom.token(byteCount: 21), email: nil, emailVerified: false, displayName: nil, photoURL: nil, createdAt: now,
            lastSignInAt: now, isGuest: true, identities: [])
        try await storage.createUser(user)
        let (session, token) = try await issueSession(uid: user.uid, authTime: now, guestUntil: now.adding(configuration.guestLifetime))
        return GuestSignIn(user: user, session: session, sessionToken: token)
    }

    /// Deletes up to `limit` guests that expired (created more than
    /// `AccountServiceConfiguration.guestLifetime` ago without linking a provider), as
    /// ``deleteUser(uid:)`` does, and returns their uids, so the application deletes its own
    /// data of theirs. Run it on a schedule; a guest that links meanwhile is not deleted.
    public func pruneExpiredGuests(limit: Int = 1000) async throws(FederateError) -> [String] {
        defer { revocations.invalidate() }
        return try await storage.deleteExpiredGuests(createdBefore: clock.now.adding(.zero - configuration.guestLifetime), limit: limit)
    }

    /// Whether `user` is a guest past its lifetime at `now`.
    func isExpiredGuest(_ user: User, now: Date) -> Bool {
        user.isGuest && user.createdAt.adding(configuration.guestLifetime) <= now
    }
}
