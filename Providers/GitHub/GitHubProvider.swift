public import FederateAccounts
import FederateOAuth2
public import FederateRelyingParty
public import FederateTokens
import Foundation

/// Sign in with GitHub (an OAuth app, or a GitHub App's user authorization), on github.com or a
/// GitHub Enterprise Server. GitHub issues no ID token: the user is read from its REST API.
///
/// ```swift
/// let github = try GitHubProvider(clientID: "Iv1.0123456789abcdef", clientSecret: secret, cache: cache)
/// // FederateServerConfiguration(providers: ["github": github, …]): /auth/github/start
/// ```
///
/// - The flow: authorization code with PKCE S256 and `state`, scopes `read:user user:email`.
/// - The subject is the numeric `id` of `GET /user` (a whole number; a string or a fraction is
///   refused), never the `login`, which the user can rename (it is kept as the profile's username).
/// - The email is one GitHub verified, from `GET /user/emails`: the primary one when it is
///   verified, else the first verified one; when none is verified, the primary address is
///   kept unverified (it claims nothing). `/user`'s public `email` is never used.
/// - GitHub ignores `prompt` and sends no `auth_time`: a GitHub sign-in never counts as a
///   recent sign-in, and reauthenticating with GitHub fails with `provider_cannot_reauthenticate`.
/// - When an account is deleted, its token is revoked through GitHub's application API
///   (`DELETE /applications/{client_id}/token`, authenticated as the app) unless
///   `revokesTokens` is `false`.
public struct GitHubProvider: Sendable {
    /// The provider ID: `github.com` (Firebase's).
    package static let providerID = "github.com"

    /// The OAuth app's client ID.
    public let clientID: String
    let clientSecret: String
    /// Where GitHub is.
    package let endpoints: GitHubEndpoints
    /// The scopes requested (default `read:user user:email`).
    package var scopes: [String]
    /// Whether deleting an account revokes its GitHub token (default `true`).
    var revokesTokens: Bool
    /// The transport, clock and observability come from here.
    package let cache: ProviderCache

    /// Creates the provider.
    public init(
        clientID: String, clientSecret: String, endpoints: GitHubEndpoints = .github, scopes: [String] = ["read:user", "user:email"],
        revokesTokens: Bool = true, cache: ProviderCache
    ) throws(FederateError) {
        guard !clientID.isEmpty, !clientSecret.isEmpty else {
            throw FederateError(.invalidConfiguration, "GitHub needs a client ID and a client secret")
        }
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.endpoints = endpoints
        self.scopes = scopes
        self.revokesTokens = revokesTokens
        self.cache = cache
    }

    /// The OAuth client for GitHub's endpoints (no RFC 8414 metadata, no RFC 9207 `iss`; the
    /// secret in the form, as GitHub documents).
    package func client() throws(FederateError) -> OAuthClient {
        OAuthClient(
            metadata: try AuthorizationServerMetadata(
                issuer: endpoints.web, authorizationEndpoint: endpoints.authorization, tokenEndpoint: endpoints.token),
            clientID: clientID, authentication: .clientSecretPost(secret: clientSecret), httpClient: cache.httpClient, clock: cache.clock,
            observability: cache.observability)
    }

    /// The credential for the user whose access token this is: `GET /user` and `GET /user/emails`.
    public func credential(accessToken: String) async throws(FederateError) -> Credential {
        let client = try client()
        let user = try await client.userResource(at: endpoints.user, accessToken: accessToken)
        guard case .object(let members) = user else { throw FederateError(.invalidUserResponse, "GitHub's /user answer is not an object") }
        let id = try OAuth2User.identifier(members["id"], field: "id", numericOnly: true)
        let email = try await verifiedEmail(client: client, accessToken: accessToken)
        func text(_ name: String) -> String? {
            guard case .string(let value)? = members[name], !value.isEmpty, value.utf8.count <= 1024 else { return nil }
            return value
        }
        return Credential(
            oauthProviderID: Self.providerID, subject: id, email: email?.address, emailVerified: email?.verified ?? false,
            tokens: ProviderTokens(accessToken: accessToken),
            profile: ProviderProfile(
                displayName: text("name") ?? text("login"), email: email?.address, photoURL: text("avatar_url"), username: text("login")))
    }

    /// The address to use from `GET /user/emails`: the primary one if verified, else the first
    /// verified one, else the primary one unverified; `nil` when the list is empty or the token
    /// may not read it (403, 404: no `user:email` scope). Any other failure (a 500, a timeout)
    /// fails the sign-in: an outage never gives an account without its email.
    func verifiedEmail(client: OAuthClient, accessToken: String) async throws(FederateError) -> (address: String, verified: Bool)? {
        guard
            let answer = try await client.userResource(
                at: endpoints.emails, accessToken: accessToken, tokenType: nil, absentWhen: [403, 404])
        else { return nil }
        guard case .array(let entries) = answer, entries.count <= 100 else {
            throw FederateError(.invalidUserResponse, "GitHub's /user/emails answer is not a list of at most 100 addresses")
        }
        var addresses: [(address: String, primary: Bool, verified: Bool)] = []
        for entry in entries {
            guard case .object(let members) = entry, case .string(let address)? = members["email"] else {
                throw FederateError(.invalidUserResponse, "an entry of GitHub's /user/emails has no email")
            }
            addresses.append((try OAuth2User.checkedEmail(address), members["primary"] == .bool(true), members["verified"] == .bool(true)))
        }
        if let primary = addresses.first(where: \.primary), primary.verified { return (primary.address, true) }
        if let verified = addresses.first(where: \.verified) { return (verified.address, true) }
        return addresses.first(where: \.primary).map { ($0.address, false) }
    }
}

extension GitHubProvider: SignInProvider {
    /// `github.com`.
    public var providerID: String { Self.providerID }

    /// Builds the authorization request. A reauthentication is refused with
    /// `provider_cannot_reauthenticate`: GitHub cannot prove a fresh sign-in.
    public func beginSignIn(_ request: SignInRequest) async throws(FederateError) -> BuiltAuthorizationRequest {
        if request.intent == .reauthenticate {
            throw FederateError(
                .providerCannotReauthenticate, "GitHub cannot prove a fresh sign-in: reauthenticate with another linked provider")
        }
        return try client().authorizationRequest(
            providerID: Self.providerID, redirectURI: request.redirectURI, scopes: scopes, intent: request.intent)
    }

    /// Finishes the code flow (a GitHub error answered with HTTP 200 is that error), then reads the user.
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let tokens = try await client().finish(callback, pending: pending)
        return try await credential(accessToken: tokens.accessToken)
    }

    /// Revokes the token through `DELETE /applications/{client_id}/token` (Basic client
    /// ID and secret), when `revokesTokens`; 204, and 404 for a token already dead, succeed.
    public func revoke(_ tokens: ProviderTokens) async throws(FederateError) {
        guard revokesTokens, let token = tokens.accessToken else { return }
        let url = endpoints.tokenRevocation(clientID: clientID)
        let destination = DestinationPolicy(issuer: endpoints.web)
        try EndpointSecurity.validate(url, field: "GitHub token revocation", destination: destination)
        let credentials = FormURLEncoding.escape(clientID) + ":" + FormURLEncoding.escape(clientSecret)
        let request = HTTPRequest(
            method: "DELETE", url: url,
            headers: [
                ("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()), ("Accept", "application/vnd.github+json"),
                ("Content-Type", "application/json"),
            ],
            body: JSONSerializer.bytes(["access_token": .string(token)]), destination: destination)
        let response = try await cache.httpClient.exchange(request)
        guard response.status == 204 || response.status == 404 else {
            throw FederateError(.unexpectedStatus, "GitHub's token revocation answered HTTP \(response.status)")
        }
    }
}
