import Synchronization

/// A bearer verifier made on first use: `resolve` (which may fetch discovery) runs when a
/// token first needs verifying, and its verifier is kept once it succeeds; a failure is
/// thrown to that caller and the next one resolves again. What every provider's
/// `BearerTokenSource.bearerVerifier()` returns.
///
/// Once resolved, an ``IDTokenBearerVerifier`` (any OpenID issuer) is called directly, not
/// through its protocol: an async call through a protocol makes the caller check its executor
/// once it returns, a hop under SwiftNIO's executor on every request.
package struct DeferredBearerVerifier: BearerTokenVerifier {
    package let providerID: String
    private let resolve: @Sendable () async throws(FederateError) -> any BearerTokenVerifier
    private let resolved = Resolved()

    private final class Resolved: Sendable {
        let verifier = Mutex<Verifier?>(nil)
    }

    /// The resolved verifier: Federate's own called directly, any other through its protocol.
    private enum Verifier: Sendable {
        case idTokens(IDTokenBearerVerifier)
        case other(any BearerTokenVerifier)

        init(_ verifier: any BearerTokenVerifier) {
            if let known = verifier as? IDTokenBearerVerifier {
                self = .idTokens(known)
            } else {
                self = .other(verifier)
            }
        }
    }

    package init(providerID: String, resolve: @escaping @Sendable () async throws(FederateError) -> any BearerTokenVerifier) {
        self.providerID = providerID
        self.resolve = resolve
    }

    package nonisolated(nonsending) func verifyBearer(
        _ token: String, expecting expectations: IDTokenExpectations
    ) async throws(FederateError) -> BearerIdentity {
        switch try await verifier() {
        case .idTokens(let verifier): return try await verifier.verifyBearer(token, expecting: expectations)
        case .other(let verifier): return try await verifier.verifyBearer(token, expecting: expectations)
        }
    }

    package nonisolated(nonsending) func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
        switch try await verifier() {
        case .idTokens(let verifier): return try await verifier.verifyCaller(token)
        case .other(let verifier): return try await verifier.verifyCaller(token)
        }
    }

    private nonisolated(nonsending) func verifier() async throws(FederateError) -> Verifier {
        if let verifier = resolved.verifier.withLock({ $0 }) { return verifier }
        let verifier = Verifier(try await resolve())
        resolved.verifier.withLock { $0 = verifier }
        return verifier
    }
}

extension DeferredBearerVerifier: JWSCallerTokenVerifier {
    /// Continues from a ``CallerTokenRouter``'s read: an ``IDTokenBearerVerifier`` does without
    /// parsing the token again; any other verifier verifies it whole.
    package nonisolated(nonsending) func verifyCaller(
        _ token: String, read: CompactJWS.HeaderRead
    ) async throws(FederateError) -> CallerIdentity {
        switch try await verifier() {
        case .idTokens(let verifier): return try await verifier.verifyCaller(token, read: read)
        case .other(let verifier): return try await verifier.verifyCaller(token)
        }
    }
}
