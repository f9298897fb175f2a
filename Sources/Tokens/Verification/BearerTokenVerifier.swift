/// Who a verified bearer token says the caller is.
public struct BearerIdentity: Sendable, CustomStringConvertible {
    /// The provider that issued the token (`google.com`, `apple.com`, `firebase`, `oidc.<name>`).
    public let providerID: String
    /// The verified ID token.
    public let idToken: IDToken

    /// Creates an identity.
    public init(providerID: String, idToken: IDToken) {
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
public protocol BearerTokenVerifier: CallerTokenVerifier {
    /// The provider ID the identities carry.
    var providerID: String { get }

    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    func verifyBearer(_ token: String, expecting expectations: IDTokenExpectations) async throws(FederateError) -> BearerIdentity

    /// Verifies `token`, expecting no nonce, without suspending when the keys are at hand;
    /// `nil` when only ``verifyBearer(_:expecting:)`` can tell. The default answers `nil`.
    func verifyBearerWithoutSuspending(_ token: String) throws(FederateError) -> BearerIdentity?
}

extension BearerTokenVerifier {
    /// None: ``verifyBearer(_:expecting:)`` answers.
    public func verifyBearerWithoutSuspending(_ token: String) throws(FederateError) -> BearerIdentity? { nil }

    /// Verifies `token` now, expecting no nonce.
    public func verifyBearer(_ token: String) async throws(FederateError) -> BearerIdentity {
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
    private let verifyToken: @Sendable (String, IDTokenExpectations) async throws(FederateError) -> IDToken
    /// The wrapped verifier, which can also verify without suspending; `nil` for a closure.
    private let verifier: IDTokenVerifier?

    /// Wraps `verify`, which returns the verified ID token or throws.
    public init(providerID: String, verify: @escaping @Sendable (String, IDTokenExpectations) async throws(FederateError) -> IDToken) {
        self.providerID = providerID
        self.verifyToken = verify
        self.verifier = nil
    }

    /// Wraps an ``IDTokenVerifier`` (any OpenID issuer).
    public init(providerID: String, verifier: IDTokenVerifier) {
        self.providerID = providerID
        self.verifyToken = { (token, expectations) throws(FederateError) in try await verifier.verify(token, expecting: expectations) }
        self.verifier = verifier
    }

    public func verifyBearer(_ token: String, expecting expectations: IDTokenExpectations) async throws(FederateError) -> BearerIdentity {
        BearerIdentity(providerID: providerID, idToken: try await verifyToken(token, expectations))
    }

    public func verifyBearerWithoutSuspending(_ token: String) throws(FederateError) -> BearerIdentity? {
        try verifier?.verifyWithoutSuspending(token).map { BearerIdentity(providerID: providerID, idToken: $0) }
    }
}
