/// A ``TokenVerifier`` whose verified-token caches can be sized or turned off after it was
/// made: how `federate serve` applies its `verified_token_cache` setting to the verifiers its
/// providers made (a router, a deferred verifier, the verifiers inside them).
package protocol CacheConfigurableVerifier: TokenVerifier {
    /// This verifier with caches of its own sized by `configuration` (`disabled`: none).
    func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier
}

/// `verifier` with caches sized by `configuration`, when it has any; else `verifier` itself.
package func withVerifiedTokenCache(_ verifier: any TokenVerifier, _ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
    (verifier as? any CacheConfigurableVerifier)?.withVerifiedTokenCache(configuration) ?? verifier
}

extension AccessTokenVerifier: CacheConfigurableVerifier {
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        caching(configuration)
    }
}

extension IDTokenBearerVerifier: CacheConfigurableVerifier {
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        IDTokenBearerVerifier(providerID: providerID, verifier: verifier.caching(configuration))
    }
}

extension CallerTokenRouter: CacheConfigurableVerifier {
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        CallerTokenRouter(
            idTokens: idTokens.map { FederateTokens.withVerifiedTokenCache($0, configuration) },
            accessTokens: accessTokens.map { FederateTokens.withVerifiedTokenCache($0, configuration) },
            introspection: introspection)
    }
}

extension DeferredTokenVerifier: CacheConfigurableVerifier {
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        DeferredTokenVerifier { () async throws(FederateError) in
            FederateTokens.withVerifiedTokenCache(try await resolveVerifier(), configuration)
        }
    }
}
