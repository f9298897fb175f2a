public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens
import Foundation
package import Logging

/// Sign in with Apple on a server, provider ID `apple.com`: the web flow with a Services ID,
/// and codes that Apple's native SDK obtained for an app (bundle ID).
///
/// ```swift
/// let cache = ProviderCache(httpClient: AsyncHTTPClientTransport.shared)   // one per server
/// let apple = try AppleProvider(servicesID: "com.example.web", teamID: "TEAM123456", keyID: "KEY1234567",
///                               privateKeyPEM: p8Contents, cache: cache)
/// let built = try await apple.beginSignIn(try SignInRequest(redirectURI: "https://app.example/auth/apple/callback"))
/// // … redirect the browser; Apple POSTs the callback (form_post):
/// let credential = try await apple.completeSignIn(try AuthorizationResponse(formBody: body), pending: built.pending)
/// // credential.profile holds the name and email on the first sign-in only: store them now.
/// ```
///
/// Client secrets are ES256 JWTs made from the `.p8` key, cached and renewed before they
/// expire, one per client ID (`sub` must equal `client_id`).
public struct AppleProvider: Sendable {
    /// Where Apple looks for the domain-association file of a web sign-in's domain; serve the
    /// file Apple gives you there, 200 without redirect (FederateHummingbird's `staticFiles`).
    public static let domainAssociationPath = "/.well-known/apple-developer-domain-association.txt"

    /// The provider ID credentials carry.
    package static let providerID = "apple.com"

    /// The Services ID: the client of the web flow.
    package let servicesID: String
    /// The team ID (the `iss` of client secrets).
    package let teamID: String
    /// The key ID of the `.p8` key.
    package let keyID: String
    /// Apple's issuer and endpoints (a stand-in's in tests).
    package var endpoints: AppleEndpoints
    /// The scopes requested (`name`, `email`); `openid` is always added.
    package var scopes: [String]
    /// How an ID token's `nonce` relates to the raw nonce an app holds (native flows).
    package var nonceMode: AppleNonceMode
    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package let cache: ProviderCache
    private let secrets: [ExactString: AppleClientSecretCache]
    /// The Services ID and the bundle IDs: every `aud` Apple's tokens and notifications may carry.
    package var clientIDs: [String] { secrets.keys.map(\.value).sorted() }

    /// Creates a provider. Throws `FederateError/Code/invalidKey` for a key that is not P-256.
    ///
    /// - Parameters:
    ///   - servicesID: the Services ID: the client of the web flow.
    ///   - bundleIDs: the apps whose native codes the server exchanges.
    ///   - teamID: the team ID (the `iss` of client secrets).
    ///   - keyID: the key ID of the `.p8` key.
    ///   - privateKeyPEM: the `.p8` file's contents.
    ///   - endpoints: Apple's issuer and endpoints (`.at(base)` for a stand-in in tests).
    ///   - scopes: the scopes requested (`name`, `email`); `openid` is always added.
    ///   - nonceMode: how an ID token's `nonce` relates to the raw nonce an app holds (native flows).
    ///   - clientSecretLifetime: how long each client secret lives (at most 15,777,000 s).
    ///   - cache: discovery and keys kept between sign-ins (one per server).
    public init(
        servicesID: String, bundleIDs: IdentifierSet = [], teamID: String, keyID: String, privateKeyPEM: String,
        endpoints: AppleEndpoints = .apple, scopes: [String] = ["name", "email"], nonceMode: AppleNonceMode = .raw,
        clientSecretLifetime: Duration = .seconds(86_400 * 30), cache: ProviderCache
    ) throws(FederateError) {
        var secrets: [ExactString: AppleClientSecretCache] = [:]
        for clientID in bundleIDs.sorted + [servicesID] {
            secrets[ExactString(clientID)] = AppleClientSecretCache(
                generator: try AppleClientSecret(
                    teamID: teamID, keyID: keyID, clientID: clientID, privateKeyPEM: privateKeyPEM, lifetime: clientSecretLifetime,
                    audience: endpoints.issuer))
        }
        self.servicesID = servicesID
        self.teamID = teamID
        self.keyID = keyID
        self.endpoints = endpoints
        self.scopes = scopes
        self.nonceMode = nonceMode
        self.cache = cache
        self.secrets = secrets
    }

    /// A client for `clientID` (default: the Services ID) with a current client secret sent
    /// in the form, as Apple requires. Ask for a client per flow: the secret inside renews.
    /// Without `discovery`, discovery and keys come from `cache`.
    package func client(
        for clientID: String? = nil, discovery: DiscoveryClient? = nil,
        httpClient: (any HTTPClient)? = nil, logger: Logger? = nil
    ) async throws(FederateError) -> OpenIDClient {
        let id = clientID ?? servicesID
        guard let secretCache = secrets[ExactString(id)] else {
            throw FederateError(.invalidConfiguration, "'\(id)' is neither the Services ID nor one of the configured bundle IDs")
        }
        let authentication = ClientAuthentication.clientSecretPost(secret: try secretCache.secret(now: cache.clock.now))
        return try await cache.client(
            issuer: endpoints.issuer, clientID: id, profile: AppleProfile(endpoints: endpoints), discovery: discovery,
            httpClient: httpClient, logger: logger
        ) { _ in authentication }
    }

    /// The web authorization request: `response_mode=form_post` whenever `name` or `email`
    /// is requested (Apple refuses anything else then), state, nonce and PKCE.
    package func authorizationRequest(
        with client: OpenIDClient, redirectURI: String, intent: AuthorizationIntent = .signIn
    ) async throws(FederateError) -> BuiltAuthorizationRequest {
        let needsFormPost = scopes.contains("name") || scopes.contains("email")
        return try await client.authorizationRequest(
            providerID: Self.providerID, redirectURI: redirectURI, scopes: ["openid"] + scopes.filter { $0 != "openid" },
            responseMode: needsFormPost ? .formPost : nil, intent: intent)
    }

    /// Exchanges a code from Apple's native SDK and returns the account layer's credential
    /// (provider `apple.com`): the client is the app's bundle ID (one of `bundleIDs`) and no
    /// `redirect_uri` is sent. `rawNonce` is the nonce the app generated, checked as the
    /// provider's `nonceMode` says (raw, or the SHA-256 hex the app sent to Apple). Apple's
    /// own claims: ``AppleIdentity`` of the credential's `idToken`.
    public func exchangeNativeCode(_ code: String, bundleID: String, rawNonce: String? = nil) async throws(FederateError) -> Credential {
        let client = try await self.client(for: bundleID)
        let tokens = try await client.exchange(code: code, redirectURI: nil, nonce: rawNonce.map(nonceMode.expectedClaim(for:)))
        return try Self.credential(tokens: tokens, user: nil, rawNonce: rawNonce, nonceMode: nonceMode)
    }

    /// Revokes a token (`hint`: `refresh_token` or `access_token`). Deleting an account
    /// should revoke its refresh token (App Store Review Guideline 5.1.1(v)).
    package func revoke(_ token: String, hint: String = "refresh_token", client: OpenIDClient) async throws(FederateError) {
        try await client.revoke(token, hint: hint)
    }
}

/// What Apple's token-endpoint error codes usually mean.
package enum AppleErrorGuidance {
    /// The advice for `code`, or `nil`.
    package static func guidance(for code: String) -> String? {
        switch code {
        case "invalid_client":
            return
                "usually the client secret's 'sub' is not the client_id sent (the Services ID for web codes, the bundle ID for native codes), or its team ID, key ID or key is wrong, or it expired"
        case "invalid_grant":
            return
                "the code expired (5 minutes), was used, or was issued to another client or redirect_uri; or the refresh token was revoked: sign the user in again"
        case "unauthorized_client":
            return "the client is not allowed to use this grant: check the Services ID's Sign in with Apple configuration"
        case "invalid_request":
            return "a parameter is missing or repeated (redirect_uri must be sent only for web codes)"
        default:
            return nil
        }
    }
}
