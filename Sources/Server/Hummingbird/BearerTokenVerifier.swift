public import Federate

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

/// Verifies the bearer token of a request. Conform a verifier of your own, or wrap any of
/// Federate's with ``IDTokenBearerVerifier``.
public protocol BearerTokenVerifier: Sendable {
    /// Verifies `token`; throws ``FederateError`` when it is not acceptable.
    func verify(_ token: String) async throws -> BearerIdentity
}

/// A ``BearerTokenVerifier`` for ID tokens that apps send: Google, Apple, Firebase or any
/// OpenID issuer, through the verifier of that provider.
///
/// ```swift
/// let google = try GoogleIDTokenVerifier(clientIDs: ["123-ios.apps.googleusercontent.com"])
/// let bearer = IDTokenBearerVerifier(providerID: "google.com") { try await google.verify($0) }
/// let firebase = IDTokenBearerVerifier(providerID: "firebase") { try await firebaseVerifier.verify($0).idToken }
/// ```
public struct IDTokenBearerVerifier: BearerTokenVerifier {
    /// The provider the tokens come from.
    public let providerID: String
    private let verifyToken: @Sendable (String) async throws -> IDToken

    /// Wraps `verify`, which returns the verified ID token or throws.
    public init(providerID: String, verify: @escaping @Sendable (String) async throws -> IDToken) {
        self.providerID = providerID
        self.verifyToken = verify
    }

    /// Wraps the core's ``IDTokenVerifier`` (any OpenID issuer).
    public init(providerID: String, verifier: IDTokenVerifier) {
        self.init(providerID: providerID) { try await verifier.verify($0) }
    }

    public func verify(_ token: String) async throws -> BearerIdentity {
        BearerIdentity(providerID: providerID, idToken: try await verifyToken(token))
    }
}
