public import FederateTokens
import Synchronization

/// A bearer verifier made on first use: `resolve` (which may fetch discovery) runs when a
/// token first needs verifying, and its verifier is kept once it succeeds; a failure is
/// thrown to that caller and the next one resolves again. What every provider's
/// ``BearerTokenSource/bearerVerifier()`` returns.
package struct DeferredBearerVerifier: BearerTokenVerifier {
    package let providerID: String
    private let resolve: @Sendable () async throws(FederateError) -> any BearerTokenVerifier
    private let resolved = Resolved()

    private final class Resolved: Sendable {
        let verifier = Mutex<(any BearerTokenVerifier)?>(nil)
    }

    package init(providerID: String, resolve: @escaping @Sendable () async throws(FederateError) -> any BearerTokenVerifier) {
        self.providerID = providerID
        self.resolve = resolve
    }

    package nonisolated(nonsending) func verifyBearer(
        _ token: String, expecting expectations: IDTokenExpectations
    ) async throws(FederateError) -> BearerIdentity {
        try await verifier().verifyBearer(token, expecting: expectations)
    }

    private nonisolated(nonsending) func verifier() async throws(FederateError) -> any BearerTokenVerifier {
        if let verifier = resolved.verifier.withLock({ $0 }) { return verifier }
        let verifier = try await resolve()
        resolved.verifier.withLock { $0 = verifier }
        return verifier
    }
}
