/// A ``TokenVerifier`` as Federate's request paths call it: Federate's own verifiers
/// directly, any other through its protocol.
///
/// An async call through a protocol makes its caller check its executor once it returns,
/// which under SwiftNIO's executor is an executor switch per call; called directly, a request
/// with warm keys takes none. The verifier's type is found once, at init, so a call is a
/// `switch`, never a cast.
package enum DirectTokenVerifier: Sendable {
    /// Any OpenID issuer's ID tokens.
    case idTokens(IDTokenBearerVerifier)
    /// A provider's ID tokens, its verifier made on first use.
    case deferred(DeferredTokenVerifier)
    /// RFC 9068 JWT access tokens.
    case accessTokens(AccessTokenVerifier)
    /// Several kinds, by the token's shape (indirect: a router holds verifiers of this type).
    indirect case router(CallerTokenRouter)
    /// Another verifier of Federate's own that continues from a header read.
    case otherContinuing(any JWSTokenVerifier)
    /// Any other verifier (an `IntrospectionClient`, one of your own), called through its protocol.
    case other(any TokenVerifier)

    /// `verifier`, called directly when it is one of Federate's own.
    package init(_ verifier: any TokenVerifier) {
        switch verifier {
        case let known as IDTokenBearerVerifier: self = .idTokens(known)
        case let known as DeferredTokenVerifier: self = .deferred(known)
        case let known as AccessTokenVerifier: self = .accessTokens(known)
        case let known as CallerTokenRouter: self = .router(known)
        case let continuing as any JWSTokenVerifier: self = .otherContinuing(continuing)
        default: self = .other(verifier)
        }
    }

    /// `verifier` when it continues from a ``CallerTokenRouter``'s header read
    /// (``verify(_:read:)``); `nil` when it is absent or verifies only whole tokens (an
    /// `IntrospectionClient`, a router).
    package init?(continuingFromHeaderRead verifier: (any TokenVerifier)?) {
        guard let verifier, verifier is any JWSTokenVerifier else { return nil }
        self.init(verifier)
    }

    /// Verifies `token` with the verifier.
    package nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        switch self {
        case .idTokens(let verifier): return try await verifier.verify(token)
        case .deferred(let verifier): return try await verifier.verify(token)
        case .accessTokens(let verifier): return try await verifier.verify(token)
        case .router(let verifier): return try await verifier.verify(token)
        case .otherContinuing(let verifier): return try await verifier.verify(token)
        case .other(let verifier): return try await verifier.verify(token)
        }
    }

    /// Verifies `token`, whose segments and header `read` holds, continuing from that read; a
    /// verifier that cannot (one ``init(continuingFromHeaderRead:)`` refuses) verifies the
    /// token whole.
    package nonisolated(nonsending) func verify(
        _ token: String, read: CompactJWS.HeaderRead
    ) async throws(FederateError) -> VerifiedToken {
        switch self {
        case .idTokens(let verifier): return try await verifier.verify(token, read: read)
        case .deferred(let verifier): return try await verifier.verify(token, read: read)
        case .accessTokens(let verifier): return try await verifier.verify(token, read: read)
        case .otherContinuing(let verifier): return try await verifier.verify(token, read: read)
        case .router, .other: return try await verify(token)
        }
    }
}
