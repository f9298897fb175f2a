public import FederateTokens

/// A provider whose ID tokens an API can take as bearer tokens (apps sign in with the
/// provider and send their ID token): it makes the `BearerTokenVerifier` for its clients.
/// `OIDCProvider`, `GoogleProvider` and `AppleProvider` conform.
public protocol BearerTokenSource: Sendable {
    /// The verifier for this provider's ID tokens addressed to its clients, with keys from
    /// its cache.
    func bearerVerifier() async throws(FederateError) -> any BearerTokenVerifier
}
