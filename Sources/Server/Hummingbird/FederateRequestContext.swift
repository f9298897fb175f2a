public import FederateServer
public import Hummingbird
public import NIOCore

/// A request context that carries `FederateAuthentication`; Federate's routes and
/// middleware work with any context conforming to it.
public protocol FederateRequestContext: RequestContext {
    /// What Federate's middleware established.
    var federate: FederateAuthentication { get set }
}

/// The ready-made ``FederateRequestContext``. It knows the connection's peer address, which
/// the rate limits of anonymous routes count by (a context of your own conforms to
/// `RemoteAddressRequestContext` for the same).
public struct FederateContext: FederateRequestContext, RemoteAddressRequestContext {
    /// Hummingbird's storage.
    public var coreContext: CoreRequestContextStorage
    /// What Federate's middleware established.
    public var federate = FederateAuthentication()
    /// The connection's peer address.
    public let remoteAddress: SocketAddress?

    /// Creates the context of a request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
