public import FederateRelyingParty
public import FederateTokens
import Foundation
package import Logging

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

    /// The OAuth client ID.
    package let clientID: String
    /// The client secret; `nil` for iOS, Android and Chrome clients, which have none.
    package let clientSecret: String?
    /// Google's issuers and endpoints (a stand-in's in tests).
    package var endpoints: GoogleEndpoints
    /// The scopes requested; `openid` is always added.
    package var scopes: [String]
    /// When not empty, the account's `hd` claim must be one of these Workspace domains. (The
    /// `hd` request parameter is only a hint to Google's account chooser; the claim decides.)
    package var hostedDomains: IdentifierSet
    /// Accepted `azp` values; `nil` accepts only this client.
    package var authorizedParties: IdentifierSet?
    /// Sends `include_granted_scopes=true` (incremental authorization).
    package var includeGrantedScopes: Bool
    /// Sends `access_type=offline` so a web server also gets a refresh token.
    package var offlineAccess: Bool
    /// Further authorization parameters (reserved names are dropped by the core).
    package var customParameters: [String: String]
    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package let cache: ProviderCache

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
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.endpoints = endpoints
        self.scopes = scopes
        self.hostedDomains = hostedDomains
        self.authorizedParties = authorizedParties
        self.includeGrantedScopes = includeGrantedScopes
        self.offlineAccess = offlineAccess
        self.customParameters = customParameters
        self.cache = cache
    }

    /// What this configuration adds to OpenID Connect (`GoogleProfile`).
    package var profile: GoogleProfile {
        GoogleProfile(
            endpoints: endpoints, authorizedParties: authorizedParties, hostedDomains: hostedDomains,
            includeGrantedScopes: includeGrantedScopes, offlineAccess: offlineAccess)
    }

    /// Discovers Google's configuration and returns a client with this configuration's
    /// `profile`: both issuer spellings, the `azp` allow-list, the hosted-domain rule,
    /// Google's parameters and revocation endpoint, and Google's error codes explained.
    /// Without `discovery`, discovery and keys come from `cache`.
    package func client(
        discovery: DiscoveryClient? = nil, httpClient: (any HTTPClient)? = nil,
        logger: Logger? = nil
    ) async throws(FederateError) -> OpenIDClient {
        try await cache.client(
            issuer: endpoints.issuer, clientID: clientID, profile: profile, discovery: discovery, httpClient: httpClient, logger: logger
        ) { metadata throws(FederateError) in try ClientAuthentication.negotiate(metadata: metadata, secret: clientSecret) }
    }

    /// Builds an authorization request with this provider's scopes and custom parameters
    /// (the client's profile adds Google's). An installed app's `redirectURI` should come
    /// from ``GoogleRedirectURI``.
    package func authorizationRequest(
        with client: OpenIDClient, redirectURI: String, loginHint: String? = nil, prompt: String? = nil, maxAge: Duration? = nil,
        intent: AuthorizationIntent = .signIn
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        try await client.authorizationRequest(
            providerID: Self.providerID, redirectURI: redirectURI, scopes: scopes, prompt: prompt, loginHint: loginHint,
            maxAge: maxAge, customParameters: customParameters, intent: intent)
    }

    /// Revokes an access or refresh token (revoking an access token revokes its refresh token too).
    package func revoke(_ token: String, client: OpenIDClient) async throws(FederateError) {
        try await client.revoke(token)
    }
}
