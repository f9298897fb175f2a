import Synchronization

/// A token verifier made on first use: `resolve` (which may fetch discovery) runs when a
/// token first needs verifying, and its verifier is kept once it succeeds; a failure is
/// thrown to that caller and the next one resolves again. What every provider's
/// `BearerTokenSource.bearerVerifier()` returns.
package struct DeferredTokenVerifier: TokenVerifier {
    private let resolve: @Sendable () async throws(FederateError) -> any TokenVerifier
    private let resolved = Resolved()

    private final class Resolved: Sendable {
        let verifier = Mutex<(any TokenVerifier)?>(nil)
    }

    package init(resolve: @escaping @Sendable () async throws(FederateError) -> any TokenVerifier) {
        self.resolve = resolve
    }

    /// Makes the verifier (without keeping it): what ``CacheConfigurableVerifier`` wraps.
    package nonisolated(nonsending) func resolveVerifier() async throws(FederateError) -> any TokenVerifier {
        try await resolve()
    }

    package nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        if let verifier = resolved.verifier.withLock({ $0 }) { return try await verifier.verify(token) }
        let verifier = try await resolve()
        resolved.verifier.withLock { $0 = verifier }
        return try await verifier.verify(token)
    }
}
