public import FederateServer
public import Hummingbird

/// Serves the RFC 9728 metadata of one or more protected resources, each at its
/// `ProtectedResourceMetadata/metadataPath` (`/.well-known/oauth-protected-resource`, then
/// the resource's path):
///
/// ```swift
/// ProtectedResourceRoutes<FederateContext>([metadata]).register(on: router)
/// ```
///
/// Give the same metadata to the ``BearerAuthenticationMiddleware`` of the resource, so its
/// challenges name it (`resource_metadata`).
public struct ProtectedResourceRoutes<Context: RequestContext>: Sendable {
    /// The resources.
    package let resources: [ProtectedResourceMetadata]

    /// Creates the routes.
    public init(_ resources: [ProtectedResourceMetadata]) {
        self.resources = resources
    }

    /// Registers `GET` each resource's metadata path on `router`.
    public func register(on router: Router<Context>) {
        for resource in resources {
            let response = resource.response
            router.get(RouterPath(resource.metadataPath)) { _, _ in Response(response) }
        }
    }
}
