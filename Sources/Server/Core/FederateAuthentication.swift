public import Federate

/// What Federate's middleware established about the caller of a request: Hummingbird's
/// `context.federate`, Vapor's `req.federate`.
public struct FederateAuthentication: Sendable {
    /// The identity of a verified bearer ID token (bearer authentication).
    public var bearer: BearerIdentity?
    /// The caller of an API route, whatever token it presented: an ID token, a JWT access
    /// token or an introspected one (bearer authentication, ``CallerAuthenticator``).
    public var caller: CallerIdentity?
    /// The verified session of the session cookie or bearer session token
    /// (session authentication, ``AccountSessionAuthenticator``).
    public var session: AccountSession?

    /// Nobody yet.
    public init() {}
}
