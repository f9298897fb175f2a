public import FederateRelyingParty
public import FederateTokens

/// Verifies Google ID tokens (Sign in with Google on the web, Android and iOS).
///
/// RS256 by Google's keys (`https://www.googleapis.com/oauth2/v3/certs`, refetched on an
/// unknown `kid`); `iss` `https://accounts.google.com` or the legacy `accounts.google.com`;
/// `aud` one of your client IDs; `azp`, when the audience is another of your clients (an
/// Android app sending its token to your server), one of the authorized parties; and, when
/// configured, `hd` one of your Workspace domains — taken from the token, never from the
/// request.
public struct GoogleIDTokenVerifier: Sendable {
    /// The issuers Google uses.
    package static let issuers: IdentifierSet = ["https://accounts.google.com", "accounts.google.com"]
    /// Google's key set.
    package static let keysURL = "https://www.googleapis.com/oauth2/v3/certs"

    /// The underlying verifier.
    package private(set) var verifier: IDTokenVerifier
    /// Workspace domains accepted in `hd`; empty accepts any account, with or without `hd`.
    package let hostedDomains: IdentifierSet

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - clientIDs: the accepted `aud` values.
    ///   - authorizedParties: the accepted `azp` values (default: `clientIDs`).
    ///   - hostedDomains: when not empty, `hd` must be one of them.
    ///   - keys: the key provider; without it, a `RemoteKeySet` on `endpoints.keysURL` fetched over `httpClient`.
    ///   - httpClient: the transport for Google's keys, when `keys` is not given.
    ///   - endpoints: Google's issuers and key URL (default: Google's own).
    ///   - clock: the time tokens are checked at, and the fetched keys' cache expires by.
    ///   - observability: where verifications are counted and traced (Docs/Operations.md).
    public init(
        clientIDs: IdentifierSet, authorizedParties: IdentifierSet? = nil, hostedDomains: IdentifierSet = [],
        keys: (any KeySetProvider)? = nil, httpClient: (any HTTPClient)? = nil, endpoints: GoogleEndpoints = .google,
        clock: FederateClock = .system, observability: Observability = Observability()
    ) throws(FederateError) {
        let provider = try RemoteKeySet.keys(keys, orFetch: endpoints.keysURL, over: httpClient, clock: clock, observability: observability)
        verifier = IDTokenVerifier(
            policy: IDTokenPolicy(
                issuers: endpoints.issuers, audiences: clientIDs, allowedAlgorithms: [.rs256], authorizedParties: authorizedParties,
                additionalRules: [HostedDomainRule(hostedDomains)]),
            keys: provider, clock: clock, observability: observability)
        self.hostedDomains = hostedDomains
    }

    /// Verifies `token` with `nonce`, when the flow sent one (``verify(_:)`` expects none).
    public nonisolated(nonsending) func verify(_ token: String, nonce: String?) async throws(FederateError) -> IDToken {
        try await verifier.verify(token, expecting: IDTokenExpectations(nonce: nonce))
    }
}

extension FederateError.Code {
    /// Google: the ID token's `hd` is missing or not an accepted Workspace domain.
    public static let hostedDomainMismatch: Self = "hosted_domain_mismatch"
}

extension GoogleIDTokenVerifier: TokenVerifier {
    /// Verifies a Google ID token, expecting no nonce: provider `google.com`, the token in
    /// `VerifiedToken.idToken`.
    public nonisolated(nonsending) func verify(_ token: String) async throws(FederateError) -> VerifiedToken {
        VerifiedToken(idToken: try await verifier.verify(token), providerID: GoogleProvider.providerID)
    }
}

extension GoogleIDTokenVerifier: CacheConfigurableVerifier {
    /// This verifier with a verified-token cache of its own sized by `configuration`.
    package func withVerifiedTokenCache(_ configuration: VerifiedTokenCacheConfiguration) -> any TokenVerifier {
        var copy = self
        copy.verifier = verifier.caching(configuration)
        return copy
    }
}
