public import FederateRelyingParty
public import FederateOIDC
public import FederateTokens
import Foundation

/// Sign in with Google through the authorization-code flow (web servers and installed apps),
/// provider ID `google.com`.
///
/// ```swift
/// let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)   // one per server
/// let google = GoogleProvider(clientID: "123.apps.googleusercontent.com", clientSecret: secret, cache: cache)
/// let built = try await google.beginSignIn(try SignInRequest(redirectURI: "https://app.example/auth/google/callback"))
/// // … redirect the browser to built.url; at the callback:
/// let credential = try await google.completeSignIn(try AuthorizationResponse(query: query), pending: built.pending)
/// ```
///
/// On top of the core's flow (PKCE S256, state, nonce, ID-token verification): both issuer
/// spellings, the optional `hd` and `azp` allow-lists, `include_granted_scopes`, and Google's
/// error codes explained — `invalid_grant` on refresh means: sign the user in again.
public struct GoogleProvider: Sendable {
    /// The provider ID credentials carry.
    package static let providerID = "google.com"

    /// The OpenID sign-in with Google's profile: sign-ins completed from UserInfo, refresh,
    /// revocation, warming and RISC events.
    public let openIDProvider: OIDCProvider
    /// Google's issuers and endpoints (a stand-in's in tests).
    package let endpoints: GoogleEndpoints
    /// When not empty, the account's `hd` claim must be one of these Workspace domains. (The
    /// `hd` request parameter is only a hint to Google's account chooser; the claim decides.)
    package let hostedDomains: IdentifierSet
    /// Accepted `azp` values; `nil` accepts only this client.
    package let authorizedParties: IdentifierSet?

    /// Creates a provider.
    ///
    /// - Parameters:
    ///   - clientID: the OAuth client ID.
    ///   - clientSecret: the client secret; `nil` for iOS, Android and Chrome clients, which have none.
    ///   - endpoints: Google's issuers and endpoints (`.at(base)` for a stand-in in tests).
    ///   - scopes: the scopes requested; `openid` is always added.
    ///   - hostedDomains: when not empty, the account's `hd` claim must be one of these Workspace
    ///     domains (the `hd` request parameter is only a hint to Google's account chooser).
    ///   - authorizedParties: accepted `azp` values; `nil` accepts only this client.
    ///   - includeGrantedScopes: sends `include_granted_scopes=true` (incremental authorization).
    ///   - offlineAccess: sends `access_type=offline` so a web server also gets a refresh token.
    ///   - customParameters: further authorization parameters (reserved names are dropped).
    ///   - cache: discovery and keys kept between sign-ins (one per server).
    public init(
        clientID: String, clientSecret: String? = nil, endpoints: GoogleEndpoints = .google,
        scopes: [String] = ["openid", "email", "profile"], hostedDomains: IdentifierSet = [], authorizedParties: IdentifierSet? = nil,
        includeGrantedScopes: Bool = true, offlineAccess: Bool = false, customParameters: [String: String] = [:],
        cache: ProviderCache
    ) {
        let profile = GoogleProfile(
            endpoints: endpoints, authorizedParties: authorizedParties, hostedDomains: hostedDomains,
            includeGrantedScopes: includeGrantedScopes, offlineAccess: offlineAccess)
        var openIDProvider = OIDCProvider(
            providerID: Self.providerID, issuer: endpoints.issuer, clientID: clientID, clientSecret: clientSecret, scopes: scopes,
            customParameters: customParameters, profile: profile, cache: cache)
        openIDProvider.events = RISCEventReader(clientID: clientID, issuer: endpoints.riscIssuer)
        self.openIDProvider = openIDProvider
        self.endpoints = endpoints
        self.hostedDomains = hostedDomains
        self.authorizedParties = authorizedParties
    }

    /// The OAuth client ID.
    package var clientID: String { openIDProvider.clientID }
    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package var cache: ProviderCache { openIDProvider.cache }
}
