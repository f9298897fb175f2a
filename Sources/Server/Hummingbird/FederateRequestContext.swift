public import FederateServer
public import Hummingbird

/// A request context that carries `FederateAuthentication`; Federate's routes and
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
