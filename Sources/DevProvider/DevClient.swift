package import Federate
import Foundation

/// How a client proves who it is at the token and revocation endpoints.
enum DevClientAuthMethod: String, Sendable, Hashable, CaseIterable {
    /// HTTP Basic with the form-encoded client ID and secret (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost = "client_secret_post"
    /// A JWT assertion signed with one of the client's registered keys (RFC 7523).
    case privateKeyJWT = "private_key_jwt"
    /// A JWT assertion signed with HS256 keyed by the client secret (RFC 7523).
    case clientSecretJWT = "client_secret_jwt"
    /// A public client: only `client_id` (PKCE protects the code).
    case none
}

/// A client registered with the dev provider.
public struct DevClient: Sendable {
    /// The client ID (for the Firebase flavour: the project ID, the `aud` of its tokens).
    public var id: String
    /// The secret; `nil` for a public client or one that authenticates with keys. In the
    /// Apple flavour the secret sent must instead be an ES256 JWT (`DevProvider/clientSecret(for:)`).
    public var secret: String?
    /// The registered redirect URIs, matched exactly, except on loopback: a plain-HTTP
    /// `127.0.0.1` or `[::1]` URI matches any port (RFC 8252 §7.3), and one whose path is `/*`
    /// (`http://127.0.0.1/*`) matches any path on that host too, so an app's own callback path
    /// (`/auth/dev/callback`) works without registering it.
    package var redirectURIs: [String]
    /// Faults applied to this client's tokens and token requests.
    var faults: Set<DevFault>
    /// Public keys for `private_key_jwt` assertions and Apple client-secret JWTs.
    package var publicKeys: JSONWebKeySet?
    /// Apple flavour: the team ID that must be the `iss` of the client-secret JWT.
    package var teamID: String?
    /// The accepted authentication methods; `nil` derives them: `private_key_jwt` with
    /// ``publicKeys`` (and no team), Basic, post and `client_secret_jwt` with a secret, Basic
    /// and post with a team, else `none`.
    var authMethods: Set<DevClientAuthMethod>?
    /// An OAuth error code `/authorize` answers with instead of a code (Google's
    /// `admin_policy_enforced`, `org_internal`, `disallowed_useragent`, ...).
    var authorizationError: String?
    /// Google flavour: ID tokens spell the issuer without its scheme, as Google's legacy tokens do.
    var legacyIssuer: Bool
    /// ID tokens carry no email or profile claims: those come only from the UserInfo endpoint,
    /// as idpy-oidc and Okta-style providers release them (OpenID Connect Core §5.4).
    var minimalIDTokens: Bool

    /// Creates a client with a secret (or a public client, without one) and its redirect URIs
    /// (see `DevProviderConfiguration/loopbackRedirects` in the standard configurations). Faults,
    /// keys and the other settings of the JSON configuration: ``DevProviderConfiguration/init(json:defaultFlavor:)``.
    public init(id: String, secret: String? = nil, redirectURIs: [String]) {
        self.init(id: id, secret: secret, redirectURIs: redirectURIs, faults: [])
    }

    /// Creates a client with every setting.
    init(
        id: String, secret: String? = nil, redirectURIs: [String], faults: Set<DevFault> = [], publicKeys: JSONWebKeySet? = nil,
        teamID: String? = nil, authMethods: Set<DevClientAuthMethod>? = nil, authorizationError: String? = nil,
        legacyIssuer: Bool = false, minimalIDTokens: Bool = false
    ) {
        self.id = id
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.faults = faults
        self.publicKeys = publicKeys
        self.teamID = teamID
        self.authMethods = authMethods
        self.authorizationError = authorizationError
        self.legacyIssuer = legacyIssuer
        self.minimalIDTokens = minimalIDTokens
    }

    /// The methods this client may use (see ``authMethods``).
    var acceptedAuthMethods: Set<DevClientAuthMethod> {
        if let authMethods { return authMethods }
        if secret != nil { return [.clientSecretBasic, .clientSecretPost, .clientSecretJWT] }
        if teamID != nil { return [.clientSecretBasic, .clientSecretPost] }
        if publicKeys != nil { return [.privateKeyJWT] }
        return [.none]
    }

    /// Whether `uri` is one of the registered redirect URIs.
    package func accepts(redirectURI uri: String) -> Bool {
        redirectURIs.contains { registered in
            registered == uri || Self.sameLoopbackIgnoringPort(registered, uri)
        }
    }

    private static func sameLoopbackIgnoringPort(_ registered: String, _ candidate: String) -> Bool {
        guard let r = URLComponents(string: registered), let c = URLComponents(string: candidate),
            r.scheme == "http", c.scheme == "http", let host = r.host, ["127.0.0.1", "::1", "[::1]"].contains(host),
            r.port == nil, c.host == r.host, c.user == nil, c.password == nil, c.fragment == nil
        else { return false }
        if r.path == "/*" { return c.path.hasPrefix("/") && r.query == nil }
        return c.path == r.path && c.query == r.query
    }
}
