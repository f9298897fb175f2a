public import Federate

/// Verifies the access token of a DPoP request and returns its claims, from which
/// ``DPoPAuthenticationMiddleware`` reads `cnf.jkt`: a JWT access token's verified claims
/// (``jwt(_:)``), or an introspection response's, or your own check's.
public struct DPoPAccessTokenVerifier: Sendable {
    private let verifyToken: @Sendable (String) async throws(FederateError) -> [String: JSONValue]

    /// Wraps `verify`, which returns the token's verified claims or throws.
    public init(_ verify: @escaping @Sendable (String) async throws(FederateError) -> [String: JSONValue]) {
        self.verifyToken = verify
    }

    /// JWT access tokens verified by `verifier` (for instance with `ExplicitTypeRule.accessToken`).
    public static func jwt(_ verifier: JWTVerifier) -> DPoPAccessTokenVerifier {
        DPoPAccessTokenVerifier { (token) throws(FederateError) in try await verifier.verify(token).claims }
    }

    /// The verified claims of `token`.
    public func verify(_ token: String) async throws(FederateError) -> [String: JSONValue] {
        try await verifyToken(token)
    }
}

/// What ``DPoPAuthenticationMiddleware`` established: a DPoP-bound access token and the
/// proof of its key that came with the request.
public struct DPoPAuthentication: Sendable {
    /// The access token's verified claims.
    public let claims: [String: JSONValue]
    /// The verified proof (its key's thumbprint is the token's `cnf.jkt`).
    public let proof: DPoPProof

    /// Records a verified request.
    public init(claims: [String: JSONValue], proof: DPoPProof) {
        self.claims = claims
        self.proof = proof
    }

    /// The token's `sub`, if any.
    public var subject: String? { claims["sub"]?.stringValue }
}
