public import FederateTokens

/// A provider whose ID tokens an API can take as bearer tokens (apps sign in with the
/// provider and send their ID token): it makes the `TokenVerifier` for its clients.
/// `OIDCProvider`, `GoogleProvider`, `AppleProvider` and `MicrosoftProvider` conform.
public protocol BearerTokenSource: Sendable {
    /// The verifier for this provider's ID tokens addressed to its clients. Making it fetches
    /// nothing: the discovery document and keys are resolved through the provider's cache on
    /// first use, so a provider that is down makes verifications fail with a typed error
    /// (`provider_unavailable`, `discovery_failed`…), never the server's start.
    func bearerVerifier() -> any TokenVerifier
}

extension BearerTokenSource {
    /// ``bearerVerifier()`` with its verified-token cache sized by `cache`, or turned off with
    /// `.disabled` (Docs/AccessTokens.md, "The verified-token cache"). Which tokens are accepted
    /// does not change: only how often a token seen before is verified again.
    public func bearerVerifier(cache: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        withVerifiedTokenCache(bearerVerifier(), cache)
    }
}
