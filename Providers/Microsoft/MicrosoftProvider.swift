public import FederateRelyingParty
public import FederateTokens
public import FederateOIDC

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

    /// The OpenID sign-in at the audience's authority with Microsoft's profile, never completed
    /// from UserInfo (Graph's) and never taking Entra's `email` as verified: refresh and warming.
    public let openIDProvider: OIDCProvider
    /// Who may sign in.
    package let audience: MicrosoftAudience
    /// The profile the core applies.
    package let profile: MicrosoftProfile

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
        let profile = try MicrosoftProfile(audience: audience, endpoints: endpoints)
        var openIDProvider = OIDCProvider(
            providerID: Self.providerID, issuer: endpoints.authority(audience.segment), clientID: clientID, clientSecret: clientSecret,
            scopes: scopes, customParameters: customParameters, profile: profile, cache: cache)
        openIDProvider.completesFromUserInfo = false
        openIDProvider.trustsEmailVerified = false
        self.openIDProvider = openIDProvider
        self.audience = audience
        self.profile = profile
    }

    /// Discovers the authority's configuration and returns a client with `profile`.
    package func client() async throws(FederateError) -> OpenIDClient {
        try await openIDProvider.client()
    }
}
