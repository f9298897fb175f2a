/// The ``TokenVerifier`` for the ID tokens of any OpenID issuer: an ``IDTokenVerifier`` with
/// the ID of the provider whose tokens it verifies, expecting no nonce (a token an app sends
/// to its own backend).
///
/// ```swift
/// let bearer = IDTokenBearerVerifier(providerID: "oidc.corp", verifier: IDTokenVerifier(policy: policy, keys: keys))
/// let verified = try await bearer.verify(token)   // verified.idToken, verified.providerID
/// ```
public struct IDTokenBearerVerifier: TokenVerifier {
    /// The provider the tokens come from.
    public let providerID: String
    /// The ID-token verifier.
    package let verifier: IDTokenVerifier

    /// Wraps an ``IDTokenVerifier`` (any OpenID issuer).
    public init(providerID: String, verifier: IDTokenVerifier) {
        self.providerID = providerID
        self.verifier = verifier
    }

    /// Verifies `token` as an ID token, expecting no nonce.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        VerifiedToken(idToken: try await verifier.verify(token), providerID: providerID)
    }
}
