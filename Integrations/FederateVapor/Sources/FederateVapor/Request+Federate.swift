public import FederateServer
public import Vapor

extension Request {
    /// What Federate's middleware established about this request's caller: the verified
    /// session (``SessionAuthenticationMiddleware``), the API caller and bearer ID token
    /// (``BearerAuthenticationMiddleware``). Empty until a middleware sets it.
    public var federate: FederateAuthentication {
        get { storage[FederateAuthenticationKey.self] ?? FederateAuthentication() }
        set { storage[FederateAuthenticationKey.self] = newValue }
    }
}

/// Where ``Vapor/Request/federate`` is kept.
private struct FederateAuthenticationKey: StorageKey {
    typealias Value = FederateAuthentication
}
