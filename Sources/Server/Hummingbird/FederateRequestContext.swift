public import Federate
public import Hummingbird

/// What Federate's middleware established about the caller of a request.
public struct FederateAuthentication: Sendable {
    /// The identity of a verified bearer ID token (``BearerAuthenticationMiddleware``).
    public var bearer: BearerIdentity?
    /// The caller of an API route, whatever token it presented: an ID token, a JWT access
    /// token or an introspected one (``BearerAuthenticationMiddleware``).
    public var caller: CallerIdentity?
    /// The verified session of the session cookie or bearer session token
    /// (``SessionAuthenticationMiddleware``).
    public var session: AccountSession?

    /// Nobody yet.
    public init() {}
}

/// A request context that carries ``FederateAuthentication``; Federate's routes and
/// middleware work with any context conforming to it.
public protocol FederateRequestContext: RequestContext {
    /// What Federate's middleware established.
    var federate: FederateAuthentication { get set }
}

/// The ready-made ``FederateRequestContext``.
public struct FederateContext: FederateRequestContext {
    /// Hummingbird's storage.
    public var coreContext: CoreRequestContextStorage
    /// What Federate's middleware established.
    public var federate = FederateAuthentication()

    /// Creates the context of a request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
