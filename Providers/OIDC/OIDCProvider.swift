import FederateAccounts
public import FederateRelyingParty
public import FederateTokens
import Foundation
public import Logging

/// Any OpenID provider, configured by its issuer: everything else comes from discovery.
///
/// ```swift
/// let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)   // one per server
/// let provider = try OIDCProvider(id: "oidc.example", issuer: "https://login.example.com",
///                                 clientID: "app", clientSecret: secret, cache: cache)
/// let built = try await provider.beginSignIn(try SignInRequest(redirectURI: callbackURL))
/// ```
///
/// The code flow with PKCE is the only flow; custom parameters pass the core's
/// reserved-parameter filter.
public struct OIDCProvider: Sendable {
    /// The provider ID credentials carry: `oidc.` followed by a name.
    package let id: String
    /// The issuer identifier.
    package let issuer: String
    /// The client ID registered with the provider.
    package let clientID: String
    /// The client secret, if the client has one (else a public client, or `private_key_jwt`).
    package let clientSecret: String?
    /// A private key for `private_key_jwt` client authentication, preferred when set.
    package let privateKey: (key: JWSSigningKey, algorithm: JWSAlgorithm)?
    /// The scopes requested; `openid` is always added.
    package var scopes: [String]
    /// Provider-specific authorization parameters (reserved names are dropped by the core).
    package var customParameters: [String: String]
    /// A configured client authentication; `nil` negotiates it from discovery's
    /// `token_endpoint_auth_methods_supported` and what this configuration has.
    public var authentication: ClientAuthentication?
    /// How authorization requests reach the provider: pushed (PAR) when it requires it or
    /// this says so, and as a signed request object (JAR) when this names a key. Default
    /// `AuthorizationDelivery.automatic`.
    public var delivery: AuthorizationDelivery = .automatic
    /// What this provider adds to standard OpenID Connect (`StandardOpenIDProfile` unless
    /// given): the plug-in point for a provider module built on this one.
    package let profile: any OpenIDProviderProfile
    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package let cache: ProviderCache
    /// DPoP (RFC 9449) for this provider: the key its clients prove possession of, so the
    /// provider binds its tokens to it. `nil` (the default): bearer tokens.
    public var dpop: DPoPProofSigner?

    /// Creates a provider. `id` must be `oidc.` followed by 1–64 letters, digits, `-`, `_` or `.`;
    /// `issuer` HTTPS, or plain HTTP on a loopback host (else `insecure_endpoint` or `invalid_url`,
    /// at once: an application with an insecure issuer does not start).
    public init(
        id: String, issuer: String, clientID: String, clientSecret: String? = nil,
        privateKey: (key: JWSSigningKey, algorithm: JWSAlgorithm)? = nil,
        scopes: [String] = ["openid", "email", "profile"], customParameters: [String: String] = [:],
        profile: any OpenIDProviderProfile = StandardOpenIDProfile(), cache: ProviderCache
    ) throws(FederateError) {
        guard Self.isValidID(id) else {
            throw FederateError(.invalidConfiguration, "an OIDC provider ID is 'oidc.' followed by 1-64 of [A-Za-z0-9._-]")
        }
        if let privateKey, ![.rs256, .es256].contains(privateKey.algorithm) {
            throw FederateError(.invalidConfiguration, "private_key_jwt uses RS256 or ES256")
        }
        // Refused now, when the application starts, not on the first request: HTTPS, or plain
        // HTTP on a loopback host (development).
        try EndpointSecurity.validate(
            issuer, field: "issuer", destination: DestinationPolicy(issuer: issuer, allowing: profile.privateNetworkAllowList))
        self.id = id
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.privateKey = privateKey
        self.scopes = scopes
        self.customParameters = customParameters
        self.profile = profile
        self.cache = cache
    }

    /// Whether `id` is a valid `oidc.<name>` provider ID.
    package static func isValidID(_ id: String) -> Bool {
        id.hasPrefix("oidc.") && ProviderRegistry.isValidName(String(decoding: id.utf8.dropFirst(5), as: UTF8.self))
    }

    /// Discovers the issuer and returns a client whose authentication follows what the
    /// provider advertises and what this configuration has. Without `discovery`, discovery
    /// and keys come from the provider's cache; without `logger`, the client logs to the
    /// cache's (`ProviderCache(logger:)`).
    public func client(
        discovery: DiscoveryClient? = nil, httpClient: (any HTTPClient)? = nil,
        logger: Logger? = nil
    ) async throws(FederateError) -> OpenIDClient {
        try await cache.client(
            issuer: issuer, clientID: clientID, profile: profile, discovery: discovery, httpClient: httpClient, logger: logger,
            authentication: negotiated
        ).withDPoP(dpop)
    }

    private func negotiated(_ metadata: ProviderMetadata) throws(FederateError) -> ClientAuthentication {
        if let authentication { return authentication }
        return try ClientAuthentication.negotiate(metadata: metadata, secret: clientSecret, privateKey: privateKey)
    }

    /// Builds an authorization request with this provider's scopes and custom parameters,
    /// delivered as `delivery` says (`nil`: in the URL): pushed (PAR) and/or as a signed
    /// request object (JAR).
    package func authorizationRequest(
        with client: OpenIDClient, redirectURI: String, delivery: AuthorizationDelivery? = nil, responseMode: ResponseMode? = nil,
        prompt: String? = nil, loginHint: String? = nil, maxAge: Duration? = nil, intent: AuthorizationIntent = .signIn
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await client.authorizationRequest(
            providerID: id, redirectURI: redirectURI, delivery: delivery, scopes: scopes, responseMode: responseMode, prompt: prompt,
            loginHint: loginHint, maxAge: maxAge, customParameters: customParameters, intent: intent)
    }
}
