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

    /// Per-call client authentication, when a provider module decides it for each client ID
    /// (Apple's client-secret JWTs, renewed before they expire); `nil`: ``authentication``,
    /// else negotiated from discovery.
    package var authenticate: (@Sendable (_ clientID: String) throws(FederateError) -> ClientAuthentication)?
    /// How the provider answers sign-ins (Apple's `form_post`); `nil`: the redirect's query.
    package var responseMode: ResponseMode?
    /// Whether a sign-in's `login_hint` is sent (Apple takes none).
    package var sendsLoginHint = true
    /// Whether a sign-in is completed from UserInfo when discovery advertises an endpoint
    /// (Apple has none; Entra's, on Microsoft Graph, takes only Graph's access tokens).
    package var completesFromUserInfo = true
    /// Whether the provider's `email_verified` is believed (Entra's `email` is not verified by Microsoft).
    package var trustsEmailVerified = true
    /// What the provider POSTs out of band, and how it is read: back-channel logout unless a
    /// provider module reads other events (Google's RISC, Apple's notifications).
    package var events: any ProviderEventReader = BackChannelLogoutReader()

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
        self.init(
            providerID: id, issuer: issuer, clientID: clientID, clientSecret: clientSecret, privateKey: privateKey, scopes: scopes,
            customParameters: customParameters, profile: profile, cache: cache)
    }

    /// The OpenID sign-in of a provider module (`google.com`, `apple.com`, `microsoft.com`):
    /// its provider ID, issuer and profile, checked by the module.
    package init(
        providerID: String, issuer: String, clientID: String, clientSecret: String?,
        privateKey: (key: JWSSigningKey, algorithm: JWSAlgorithm)? = nil, scopes: [String], customParameters: [String: String],
        profile: any OpenIDProviderProfile, cache: ProviderCache
    ) {
        self.id = providerID
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
        try await client(for: clientID, discovery: discovery, httpClient: httpClient, logger: logger)
    }

    /// ``client(discovery:httpClient:logger:)`` for another client ID of the same provider
    /// (an app's bundle ID at Apple).
    package func client(
        for clientID: String, discovery: DiscoveryClient? = nil, httpClient: (any HTTPClient)? = nil, logger: Logger? = nil
    ) async throws(FederateError) -> OpenIDClient {
        try await cache.client(
            issuer: issuer, clientID: clientID, profile: profile, discovery: discovery, httpClient: httpClient, logger: logger
        ) { (metadata) throws(FederateError) in
            if let authenticate { return try authenticate(clientID) }
            if let authentication { return authentication }
            return try ClientAuthentication.negotiate(metadata: metadata, secret: clientSecret, privateKey: privateKey)
        }.withDPoP(dpop)
    }

    /// Builds an authorization request with this provider's scopes, custom parameters and
    /// response mode, delivered as `delivery` says (`nil`: in the URL): pushed (PAR) and/or
    /// as a signed request object (JAR).
    package func authorizationRequest(
        with client: OpenIDClient, redirectURI: String, delivery: AuthorizationDelivery? = nil, prompt: String? = nil,
        loginHint: String? = nil, maxAge: Duration? = nil, intent: AuthorizationIntent = .signIn
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await client.authorizationRequest(
            providerID: id, redirectURI: redirectURI, delivery: delivery, scopes: scopes, responseMode: responseMode, prompt: prompt,
            loginHint: sendsLoginHint ? loginHint : nil, maxAge: maxAge, customParameters: customParameters, intent: intent)
    }

    /// The callback validated, the code exchanged, the ID token verified, then the sign-in
    /// completed from UserInfo (``completesFromUserInfo``).
    package func finish(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> OpenIDSignIn {
        let client = try await client()
        let signIn = try await client.finish(callback, pending: pending)
        return completesFromUserInfo ? try await client.completingWithUserInfo(signIn) : signIn
    }
}
