public import Federate

/// What Federate's middleware established about the caller of a request: Hummingbird's
/// `context.federate`, Vapor's `req.federate`.
public struct FederateAuthentication: Sendable {
    /// The verified token the caller of an API route presented: an ID token, a JWT access
    /// token or an introspected one (bearer authentication, ``CallerAuthenticator``); its
    /// `idToken` or `accessToken` is the kind's own reading.
    public var caller: VerifiedToken?
    /// The verified session of the session cookie or bearer session token
    /// (session authentication, ``AccountSessionAuthenticator``).
    public var session: AccountSession?

    /// Nobody yet.
    public init() {}
}
