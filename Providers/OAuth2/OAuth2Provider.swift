public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens
import Foundation

/// Any OAuth 2.0 provider that issues no ID token, configured from data: where its
/// authorization server is (an issuer with RFC 8414 metadata, or the endpoints), its user
/// endpoint, and which JSON fields of that endpoint's answer say who the user is
/// (``OAuth2UserFields``). A team adds Discord or an internal OAuth server without code.
///
/// ```swift
/// let discord = try OAuth2Provider(
///     id: "oauth2.discord", server: .endpoints(try AuthorizationServerMetadata(
///         issuer: "https://discord.com", authorizationEndpoint: "https://discord.com/oauth2/authorize",
///         tokenEndpoint: "https://discord.com/api/oauth2/token", revocationEndpoint: "https://discord.com/api/oauth2/token/revoke")),
///     userEndpoint: "https://discord.com/api/users/@me", clientID: "…", clientSecret: secret, scopes: ["identify", "email"],
///     fields: OAuth2UserFields(id: "id", email: "email", emailVerified: "verified", name: "global_name", username: "username"),
///     cache: cache)
/// ```
///
/// The identity rules are stricter than an ID token's, since nothing is signed: the subject is
/// the `id` field (a string or a whole number, never a login name or an email), an email counts
/// as verified only when the `emailVerified` field is JSON `true`, and the user endpoint is
/// called with the access token over HTTPS (loopback HTTP excepted), its answer bounded and
/// strictly parsed. Without a freshness proof (`OAuth2UserFields(authTime:)`) the provider
/// cannot reauthenticate (`provider_cannot_reauthenticate`), and its sign-ins never count as
/// recent.
public struct OAuth2Provider: Sendable {
    /// Where the authorization server's endpoints come from.
    public enum Server: Sendable {
        /// Its RFC 8414 metadata (or OpenID discovery document), fetched for this issuer and cached.
        case issuer(String)
        /// Endpoints given here.
        case endpoints(AuthorizationServerMetadata)
    }

    /// The provider ID credentials carry: `oauth2.` followed by a name.
    package let id: String
    /// Where the authorization server is.
    package let server: Server
    /// The user endpoint (HTTPS, or HTTP on a loopback host).
    package let userEndpoint: String
    /// The client ID.
    public let clientID: String
    /// The scopes requested.
    package var scopes: [String]
    /// Which fields of the user endpoint's answer identify the user.
    package var fields: OAuth2UserFields
    /// Extra authorization parameters (reserved names are dropped).
    package var customParameters: [String: String]
    /// How the client authenticates: `client_secret_basic` with a secret (`client_secret_post`
    /// when the server advertises only that), `none` without one; set it to choose.
    public var authentication: ClientAuthentication
    /// Metadata, user answers and keys are fetched through this cache (one per server).
    package let cache: ProviderCache

    /// Creates a provider. `id` is `oauth2.` followed by 1–64 of `A-Z a-z 0-9 . _ -`; the user
    /// endpoint must pass `EndpointSecurity` (`insecure_endpoint`, `invalid_url`).
    public init(
        id: String, server: Server, userEndpoint: String, clientID: String, clientSecret: String?, scopes: [String],
        fields: OAuth2UserFields = OAuth2UserFields(), customParameters: [String: String] = [:], cache: ProviderCache
    ) throws(FederateError) {
        guard Self.isValidID(id) else {
            throw FederateError(.invalidConfiguration, "an OAuth 2.0 provider ID is 'oauth2.' followed by 1-64 of [A-Za-z0-9._-]")
        }
        switch server {
        case .issuer(let issuer):
            let destination = DestinationPolicy(issuer: issuer)
            try EndpointSecurity.validate(issuer, field: "issuer", destination: destination)
            try EndpointSecurity.validate(userEndpoint, field: "user endpoint", destination: destination)
        case .endpoints(let metadata):
            try EndpointSecurity.validate(userEndpoint, field: "user endpoint", destination: metadata.destination)
        }
        guard !fields.id.isEmpty else { throw FederateError(.invalidConfiguration, "the user endpoint's ID field is needed") }
        self.id = id
        self.server = server
        self.userEndpoint = userEndpoint
        self.clientID = clientID
        self.scopes = scopes
        self.fields = fields
        self.customParameters = customParameters
        self.authentication = clientSecret.map { .clientSecretBasic(secret: $0) } ?? .none
        self.cache = cache
    }

    /// Whether `id` is `oauth2.` followed by 1–64 of `A-Z a-z 0-9 . _ -`.
    package static func isValidID(_ id: String) -> Bool {
        id.hasPrefix("oauth2.") && ProviderRegistry.isValidName(String(decoding: id.utf8.dropFirst(7), as: UTF8.self))
    }

    /// The authorization server's metadata: configured, or discovered through ``cache``.
    package func metadata() async throws(FederateError) -> AuthorizationServerMetadata {
        switch server {
        case .endpoints(let metadata): return metadata
        case .issuer(let issuer): return try await cache.authorizationServers.metadata(for: issuer)
        }
    }

    /// A client for the authorization server.
    package func client() async throws(FederateError) -> OAuthClient {
        let metadata = try await metadata()
        var authentication = self.authentication
        if case .clientSecretBasic(let secret) = authentication, let methods = metadata.tokenEndpointAuthMethodsSupported,
            !methods.contains("client_secret_basic"), methods.contains("client_secret_post")
        {
            authentication = .clientSecretPost(secret: secret)
        }
        return OAuthClient(
            metadata: metadata, clientID: clientID, authentication: authentication, httpClient: cache.httpClient, clock: cache.clock,
            observability: cache.observability)
    }

    /// The credential for the user whose access token this is: the user endpoint's answer read
    /// with the configured `fields`.
    public func credential(
        accessToken: String, tokenType: String? = nil, refreshToken: String? = nil
    ) async throws(FederateError) -> Credential {
        let client = try await client()
        let user = try OAuth2User(
            answer: try await client.userResource(at: userEndpoint, accessToken: accessToken, tokenType: tokenType), fields: fields)
        return Credential(
            oauthProviderID: id, subject: user.id, email: user.email, emailVerified: user.emailVerified,
            tokens: ProviderTokens(accessToken: accessToken, refreshToken: refreshToken),
            profile: ProviderProfile(displayName: user.name, email: user.email, photoURL: user.picture, username: user.username),
            authenticatedAt: user.authenticatedAt?.date)
    }
}

extension OAuth2Provider: SignInProvider {
    /// The provider ID: the `id` it was created with.
    public var providerID: String { id }

    /// Warming when the server's metadata is discovered.
    public var capabilities: ProviderCapabilities {
        if case .issuer = server { return ProviderCapabilities(warming: self) }
        return ProviderCapabilities()
    }

    /// Builds the authorization request (PKCE S256, `state`, the scopes). A reauthentication
    /// is refused with `provider_cannot_reauthenticate` unless `fields` names a freshness proof.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        if request.intent == .reauthenticate, fields.authTime == nil {
            throw FederateError(
                .providerCannotReauthenticate,
                "\(id) cannot prove a fresh sign-in (no ID token, no freshness proof): reauthenticate with another provider")
        }
        return try await client().authorizationRequest(
            providerID: id, redirectURI: request.redirectURI, scopes: scopes, loginHint: request.loginHint,
            customParameters: customParameters,
            intent: request.intent)
    }

    /// Finishes the code flow, then reads the user endpoint with the access token.
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let tokens = try await client().finish(callback, pending: pending)
        return try await credential(accessToken: tokens.accessToken, tokenType: tokens.tokenType, refreshToken: tokens.refreshToken)
    }

    /// Revokes the refresh token (or the access token) at the server's revocation endpoint, when it has one.
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        let client = try await client()
        guard client.metadata.revocationEndpoint != nil else { return }
        if let refresh = tokens.refreshToken {
            try await client.revoke(refresh, hint: "refresh_token")
        } else if let access = tokens.accessToken {
            try await client.revoke(access, hint: "access_token")
        }
    }
}

extension OAuth2Provider: WarmableProvider {
    /// Fetches the authorization server's metadata into the provider's cache (nothing when configured).
    public func warm() async throws(FederateError) {
        _ = try await metadata()
    }

    /// Whether the metadata is at hand.
    public var isWarm: Bool {
        switch server {
        case .endpoints: return true
        case .issuer(let issuer): return cache.authorizationServers.cachedMetadata(for: issuer) != nil
        }
    }
}
