public import FederateAccounts
public import FederateOIDC
public import FederateRelyingParty
public import FederateTokens
import Foundation

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

    /// The OpenID sign-in with Apple's profile and client secrets: `form_post` sign-ins,
    /// refresh, revocation, warming and server-to-server notifications.
    public let openIDProvider: OIDCProvider
    /// Apple's issuer and endpoints (a stand-in's in tests).
    package let endpoints: AppleEndpoints
    /// How an ID token's `nonce` relates to the raw nonce an app holds (native flows).
    package var nonceMode: AppleNonceMode
    /// The Services ID and the bundle IDs: every `aud` Apple's tokens and notifications may carry.
    package let clientIDs: [String]

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
        self.clientIDs = secrets.keys.map(\.value).sorted()
        var openIDProvider = OIDCProvider(
            providerID: Self.providerID, issuer: endpoints.issuer, clientID: servicesID, clientSecret: nil,
            scopes: ["openid"] + scopes.filter { $0 != "openid" }, customParameters: [:], profile: AppleProfile(endpoints: endpoints),
            cache: cache)
        // A current client secret, sent in the form as Apple requires, for the client of each flow.
        openIDProvider.authenticate = { [secrets, clock = cache.clock] (clientID) throws(FederateError) in
            guard let secretCache = secrets[ExactString(clientID)] else {
                throw FederateError(.invalidConfiguration, "'\(clientID)' is neither the Services ID nor one of the configured bundle IDs")
            }
            return .clientSecretPost(secret: try secretCache.secret(now: clock.now))
        }
        openIDProvider.responseMode = scopes.contains("name") || scopes.contains("email") ? .formPost : nil
        openIDProvider.sendsLoginHint = false
        openIDProvider.completesFromUserInfo = false
        openIDProvider.events = AppleNotificationReader(clientIDs: IdentifierSet(clientIDs), endpoints: endpoints)
        self.openIDProvider = openIDProvider
        self.endpoints = endpoints
        self.nonceMode = nonceMode
    }

    /// Discovery and keys kept between sign-ins (shared by copies of this value).
    package var cache: ProviderCache { openIDProvider.cache }

    /// Exchanges a code from Apple's native SDK and returns the account layer's credential
    /// (provider `apple.com`): the client is the app's bundle ID (one of `bundleIDs`) and no
    /// `redirect_uri` is sent. `rawNonce` is the nonce the app generated, checked as the
    /// provider's `nonceMode` says (raw, or the SHA-256 hex the app sent to Apple). Apple's
    /// own claims: ``AppleIdentity`` of the credential's `idToken`.
    public func exchangeNativeCode(_ code: String, bundleID: String, rawNonce: String? = nil) async throws(FederateError) -> Credential {
        let client = try await openIDProvider.client(for: bundleID)
        let tokens = try await client.exchange(code: code, redirectURI: nil, nonce: rawNonce.map(nonceMode.expectedClaim(for:)))
        return try Self.credential(signIn: try OpenIDSignIn(tokens: tokens), user: nil, rawNonce: rawNonce, nonceMode: nonceMode)
    }
}

/// What Apple's token-endpoint error codes usually mean.
enum AppleErrorGuidance {
    /// The advice for `code`, or `nil`.
    static func guidance(for code: String) -> String? {
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
