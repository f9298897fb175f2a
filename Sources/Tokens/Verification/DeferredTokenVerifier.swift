import Synchronization

/// A token verifier made on first use: `resolve` (which may fetch discovery) runs when a
/// token first needs verifying, and its verifier is kept once it succeeds; a failure is
/// thrown to that caller and the next one resolves again. What every provider's
/// `BearerTokenSource.bearerVerifier()` returns.
///
/// Once resolved, Federate's own verifier is called directly (``DirectTokenVerifier``).
package struct DeferredTokenVerifier: TokenVerifier {
    private let resolve: @Sendable () async throws(FederateError) -> any TokenVerifier
    private let resolved = Resolved()

    private final class Resolved: Sendable {
        let verifier = Mutex<DirectTokenVerifier?>(nil)
    }

    package init(resolve: @escaping @Sendable () async throws(FederateError) -> any TokenVerifier) {
        self.resolve = resolve
    }

    package nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        try await verifier().verify(token)
    }

    private nonisolated(nonsending) func verifier() async throws(FederateError) -> DirectTokenVerifier {
        if let verifier = resolved.verifier.withLock({ $0 }) { return verifier }
        let verifier = DirectTokenVerifier(try await resolve())
        resolved.verifier.withLock { $0 = verifier }
        return verifier
    }
}

extension DeferredTokenVerifier: JWSTokenVerifier {
    /// Continues from a ``CallerTokenRouter``'s read when the resolved verifier can; any other
    /// verifies the token whole.
    package nonisolated(nonsending) func verify(_ token: String, read: CompactJWS.HeaderRead) async throws(FederateError) -> VerifiedToken {
        try await verifier().verify(token, read: read)
    }
}
