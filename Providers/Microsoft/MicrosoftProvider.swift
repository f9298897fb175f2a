public import FederateRelyingParty
public import FederateTokens
package import Logging

/// Sign in with Microsoft (Entra ID work and school accounts, and personal Microsoft
/// accounts) through the authorization-code flow, provider ID `microsoft.com`.
///
/// ```swift
/// let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)   // one per server
/// let microsoft = try MicrosoftProvider(
///     clientID: "00000000-0000-0000-0000-000000000000", clientSecret: secret,
///     audience: .organizations(.only(["72f988bf-86f1-41af-91ab-2d7cd011db47"])), cache: cache)
/// let built = try await microsoft.beginSignIn(try SignInRequest(redirectURI: "https://app.example/auth/microsoft/callback"))
/// ```
///
/// Discovery is fetched at the audience's authority (`/common/v2.0`, `/organizations/v2.0`,
/// `/consumers/v2.0` or `/TENANT/v2.0`); the `{tenantid}` issuer template it gives is accepted
/// because the provider's profile carries a tenant rule, and each ID token's `iss` must be
/// the template with its own `tid`, a tenant the audience accepts. Keys come from the common
/// v2.0 key set. Entra has no revocation endpoint: ``revoke(_:)`` does nothing.
public struct MicrosoftProvider: Sendable {
    /// The provider ID credentials carry.
    package static let providerID = "microsoft.com"

    /// The application (client) ID of the app registration.
    package let clientID: String
    /// The client secret; `nil` for a public client (a native app).
    package let clientSecret: String?
    /// Who may sign in.
    package let audience: MicrosoftAudience
    /// The authority host (a stand-in's in tests).
    package let endpoints: MicrosoftEndpoints
    /// The scopes requested; `openid` is always added.
    package var scopes: [String]
    /// Further authorization parameters, such as `domain_hint` (reserved names are dropped by the core).
    package var customParameters: [String: String]
    /// The profile the core applies.
    package let profile: MicrosoftProfile
    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package let cache: ProviderCache

    /// Creates a provider; throws `invalid_configuration` for a tenant audience or tenant list
    /// with an ill-formed or no tenant ID, or personal accounts listed for `organizations`.
    public init(
        clientID: String, clientSecret: String? = nil, audience: MicrosoftAudience,
        endpoints: MicrosoftEndpoints = .at("https://login.microsoftonline.com"),
        scopes: [String] = ["openid", "email", "profile"], customParameters: [String: String] = [:], cache: ProviderCache
    ) throws(FederateError) {
        if case .tenant(let id) = audience, !TenantIDFormat.guid.accepts(id) {
            throw FederateError(.invalidConfiguration, "a tenant audience is the tenant's ID, a lower-case GUID")
        }
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.audience = audience
        self.endpoints = endpoints
        self.scopes = scopes
        self.customParameters = customParameters
        self.profile = try MicrosoftProfile(audience: audience, endpoints: endpoints)
        self.cache = cache
    }

    /// The authority discovery is fetched under: `HOST/SEGMENT/v2.0`.
    package var authority: String { endpoints.authority(audience.segment) }

    /// Discovers the authority's configuration and returns a client with `profile`. Without
    /// `discovery`, discovery and keys come from `cache`.
    package func client(
        discovery: DiscoveryClient? = nil, httpClient: (any HTTPClient)? = nil, logger: Logger? = nil
    ) async throws(FederateError) -> OpenIDClient {
        try await cache.client(
            issuer: authority, clientID: clientID, profile: profile, discovery: discovery, httpClient: httpClient, logger: logger
        ) { [clientSecret] (metadata) throws(FederateError) in
            try ClientAuthentication.negotiate(metadata: metadata, secret: clientSecret, privateKey: nil)
        }
    }

    /// Builds an authorization request with this provider's scopes and custom parameters.
    package func authorizationRequest(
        with client: OpenIDClient, redirectURI: String, prompt: String? = nil, loginHint: String? = nil, maxAge: Duration? = nil,
        intent: AuthorizationIntent = .signIn
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await client.authorizationRequest(
            providerID: Self.providerID, redirectURI: redirectURI, scopes: scopes, prompt: prompt, loginHint: loginHint, maxAge: maxAge,
            customParameters: customParameters, intent: intent)
    }
}
