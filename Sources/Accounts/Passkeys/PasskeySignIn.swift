public import Foundation

/// What a sign-in or reauthentication with a passkey gives: the user, the passkey as it is
/// now, and a new session whose `auth_time` is the assertion's.
public struct PasskeySignIn: Sendable, CustomStringConvertible {
    /// The user signed in.
    public let user: User
    /// The passkey that signed them in, with its new counter and last use.
    public let passkey: Passkey
    /// The new session.
    public let session: AccountSession
    /// The new session's token, for the session cookie or `Authorization: Bearer`.
    public let sessionToken: String

    init(user: User, passkey: Passkey, session: AccountSession, sessionToken: String) {
        self.user = user
        self.passkey = passkey
        self.session = session
        self.sessionToken = sessionToken
    }

    /// The uid and session ID; never the token.
    public var description: String { "PasskeySignIn(uid: \(user.uid), session: \(session.sessionID), token redacted)" }
}
