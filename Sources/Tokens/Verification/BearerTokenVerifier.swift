/// Who a verified bearer token says the caller is.
public struct BearerIdentity: Sendable, CustomStringConvertible {
    /// The provider that issued the token (`google.com`, `apple.com`, `firebase`, `oidc.<name>`).
    public let providerID: String
    /// The verified ID token.
    public let idToken: IDToken

    /// Creates an identity.
    package init(providerID: String, idToken: IDToken) {
        self.providerID = providerID
        self.idToken = idToken
    }

    /// The token's subject (`sub`).
    public var subject: String { idToken.subject }

    public var description: String { "BearerIdentity(\(providerID), sub: \(subject))" }
}

/// Verifies a token that a caller presents as `Authorization: Bearer`: the one protocol that
/// the ID-token verifiers of every provider implement (Google, Apple, Firebase, any OpenID
/// issuer through ``IDTokenBearerVerifier``), so a CLI, a middleware or a server takes any of
/// them. Every bearer verifier is also a ``CallerTokenVerifier`` (ID tokens as API callers).
///
/// The requirement runs on its caller's executor (`nonisolated(nonsending)`): with the keys
/// at hand a verification answers without suspending.
public protocol BearerTokenVerifier: CallerTokenVerifier {
    /// The provider ID the identities carry.
    var providerID: String { get }

    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    nonisolated(nonsending) func verifyBearer(
        _ token: String, expecting expectations: IDTokenExpectations
    ) async throws(FederateError) -> BearerIdentity
}

extension BearerTokenVerifier {
    /// Verifies `token` now, expecting no nonce.
    package nonisolated(nonsending) func verifyBearer(_ token: String) async throws(FederateError) -> BearerIdentity {
        try await verifyBearer(token, expecting: IDTokenExpectations())
    }
}

/// A ``BearerTokenVerifier`` for the ID tokens of any OpenID issuer (an ``IDTokenVerifier``
/// with the provider's ID), or for a verification of your own.
///
/// ```swift
/// let bearer = IDTokenBearerVerifier(providerID: "oidc.corp", verifier: IDTokenVerifier(policy: policy, keys: keys))
/// ```
public struct IDTokenBearerVerifier: BearerTokenVerifier {
    /// The provider the tokens come from.
    public let providerID: String
    private let verification: Verification

    private typealias Verify = nonisolated(nonsending) @Sendable (String, IDTokenExpectations) async throws(FederateError) -> IDToken

    private enum Verification: Sendable {
        case verifier(IDTokenVerifier)
        case closure(Verify)
    }

    /// Wraps `verify`, which returns the verified ID token or throws. It runs on the caller's
    /// executor, as every verification does: the bearer verifier of a provider of your own
    /// whose ID-token verifier is reached asynchronously (`Docs/Architecture.md`).
    public init(
        providerID: String,
        verify: nonisolated(nonsending) @escaping @Sendable (String, IDTokenExpectations) async throws(FederateError) -> IDToken
    ) {
        self.providerID = providerID
        self.verification = .closure(verify)
    }

    /// Wraps an ``IDTokenVerifier`` (any OpenID issuer).
    public init(providerID: String, verifier: IDTokenVerifier) {
        self.providerID = providerID
        self.verification = .verifier(verifier)
    }

    public nonisolated(nonsending) func verifyBearer(
        _ token: String, expecting expectations: IDTokenExpectations
    ) async throws(FederateError) -> BearerIdentity {
        switch verification {
        case .verifier(let verifier):
            return BearerIdentity(providerID: providerID, idToken: try await verifier.verify(token, expecting: expectations))
        case .closure(let verify):
            return BearerIdentity(providerID: providerID, idToken: try await verify(token, expectations))
        }
    }

    /// Verifies `token` as an ID token, expecting no nonce. Its own implementation, so a caller
    /// that knows this type calls it directly (an async call through a protocol makes the
    /// caller check its executor once it returns).
    public nonisolated(nonsending) func verifyCaller(_ token: String) async throws(FederateError) -> CallerIdentity {
        CallerIdentity(bearer: try await verifyBearer(token, expecting: IDTokenExpectations()))
    }
}

extension IDTokenBearerVerifier: JWSCallerTokenVerifier {
    package nonisolated(nonsending) func verifyCaller(
        _ token: String, read: CompactJWS.HeaderRead
    ) async throws(FederateError) -> CallerIdentity {
        switch verification {
        case .verifier(let verifier):
            return CallerIdentity(bearer: BearerIdentity(providerID: providerID, idToken: try await verifier.verify(token, read: read)))
        case .closure:
            // A verification of the caller's own reads the token itself.
            return try await verifyCaller(token)
        }
    }
}
