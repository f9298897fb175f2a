public import Federate
import Foundation

/// What the dev provider serves.
public struct DevProviderConfiguration: Sendable {
    /// The provider imitated.
    package var flavor: DevFlavor
    /// The registered clients.
    public var clients: [DevClient]
    /// The test users, in display order.
    public var users: [DevUser]
    /// When set, the authorization endpoint signs this user in at once (scripted use);
    /// `login_hint` still wins.
    package var autoApproveSubject: String?
    /// Lifetime of access and ID tokens.
    var tokenLifetime: Duration
    /// `Cache-Control: max-age` of the key set and certificate map (sent in whole seconds).
    var keysMaxAge: Duration
    /// Firebase flavour: the project ID (the issuer is the server's URL plus `/` and this).
    package var projectID: String
    /// Firebase flavour: `firebase.sign_in_provider` of the tokens.
    var firebaseSignInProvider: String
    /// Apple flavour: the key the standard Apple client signs its client secrets with.
    public var appleClientKey: DevAppleClientKey?
    /// The provider's time: when tokens are issued and expire, codes and sessions age, and
    /// retired keys stop being published. A test hands it the clock it gives the relying
    /// party, and advances both at once.
    package var clock: FederateClock
    /// Whether discovery says `require_pushed_authorization_requests` and `/authorize` refuses
    /// requests that were not pushed (RFC 9126). Default `false`.
    public var requirePushedAuthorizationRequests = false
    /// Generic flavour: the `aud` of access tokens issued without an RFC 8707 `resource`
    /// parameter (`Docs/AccessTokens.md`).
    package var accessTokenResource: String = DevProviderConfiguration.defaultAccessTokenResource
    /// Generic flavour: whether access tokens are RFC 9068 JWTs (the default) or opaque strings
    /// that only introspection can read. The other flavours issue opaque tokens, as their providers do.
    public var accessTokenFormat: DevAccessTokenFormat = .jwt
    /// DPoP (RFC 9449): whether token and UserInfo requests must carry a nonce the provider
    /// issued, so clients exercise `use_dpop_nonce`. Off by default.
    public var requiresDPoPNonce = false

    /// Creates a configuration.
    public init(
        flavor: DevFlavor = .generic, clients: [DevClient], users: [DevUser], autoApproveSubject: String? = nil,
        tokenLifetime: Duration = .seconds(3600), keysMaxAge: Duration = .seconds(300), projectID: String = "dev-project",
        firebaseSignInProvider: String = "google.com", appleClientKey: DevAppleClientKey? = nil, clock: FederateClock = .system
    ) {
        self.flavor = flavor
        self.clients = clients
        self.users = users
        self.autoApproveSubject = autoApproveSubject
        self.tokenLifetime = tokenLifetime
        self.keysMaxAge = keysMaxAge
        self.projectID = projectID
        self.firebaseSignInProvider = firebaseSignInProvider
        self.appleClientKey = appleClientKey
        self.clock = clock
    }

    /// Loopback redirect URIs on any port and any path (`http://127.0.0.1:PORT/any/path`), so
    /// `federate login`'s `/callback` and an app's `/auth/{name}/callback` both work.
    static let loopbackRedirects = ["http://127.0.0.1/*", "http://[::1]/*"]

    /// Two test users: alice (verified email) and bob (unverified), alice auto-approved.
    static let standardUsers = [
        DevUser(subject: "alice", email: "alice@example.com", name: "Alice Example"),
        DevUser(subject: "bob", email: "bob@example.com", emailVerified: false, name: "Bob Example"),
    ]

    /// The generic flavour, ready to use: client `dev-client` (secret `dev-secret`), public
    /// client `dev-public`, both with loopback redirects on any port, and two users: alice
    /// (verified email, auto-approved) and bob (unverified).
    public static let standard = DevProviderConfiguration(
        clients: [
            DevClient(id: "dev-client", secret: "dev-secret", redirectURIs: loopbackRedirects),
            DevClient(id: "dev-public", redirectURIs: loopbackRedirects),
        ],
        users: standardUsers, autoApproveSubject: "alice")

    /// A ready-to-use configuration for `flavor`:
    /// - generic: ``standard``;
    /// - google: client `dev-google.apps.googleusercontent.com` (secret `dev-google-secret`)
    ///   and a public one, users alice (hosted domain `example.com`), bob, and carol who
    ///   refuses the `profile` scope;
    /// - apple: Services ID `com.example.dev.web` and app `com.example.dev.app` (for native
    ///   codes) of team `DEVTEAM001` with a fresh P-256 client key (``appleClientKey``), users
    ///   alice and a private-relay user;
    /// - firebase: client `dev-project` (the project ID), public;
    /// - microsoft: confidential client `11111111-2222-3333-4444-555555555555` (secret
    ///   `dev-microsoft-secret`) and public client `11111111-2222-3333-4444-666666666666`; alice
    ///   at `contoso.example`, bob at `fabrikam.example` and carol at `outlook.com` (a personal
    ///   account); alice auto-approved;
    /// - github: OAuth app `dev-github-client` (secret `dev-github-secret`); alice (`1001`, login
    ///   `alice-example`, verified), bob (`1002`, primary address unverified, another verified)
    ///   and mallory (`1003`, alice's address unverified); alice auto-approved.
    public static func standard(for flavor: DevFlavor) -> DevProviderConfiguration {
        switch flavor {
        case .generic:
            return standard
        case .google:
            return DevProviderConfiguration(
                flavor: .google,
                clients: [
                    DevClient(id: "dev-google.apps.googleusercontent.com", secret: "dev-google-secret", redirectURIs: loopbackRedirects),
                    DevClient(id: "dev-google-public.apps.googleusercontent.com", redirectURIs: loopbackRedirects),
                ],
                users: [
                    DevUser(
                        subject: "110248495921238986420", email: "alice@example.com", name: "Alice Example", hostedDomain: "example.com"),
                    DevUser(subject: "110248495921238986421", email: "bob@gmail.com", emailVerified: false, name: "Bob Example"),
                    DevUser(subject: "110248495921238986422", email: "carol@gmail.com", name: "Carol Example", refusedScopes: ["profile"]),
                ],
                autoApproveSubject: "110248495921238986420")
        case .apple:
            let key = DevAppleClientKey(teamID: "DEVTEAM001", keyID: "DEVKEY0001")
            return DevProviderConfiguration(
                flavor: .apple,
                clients: [
                    DevClient(
                        id: "com.example.dev.web", redirectURIs: loopbackRedirects, publicKeys: key.publicKeySet, teamID: key.teamID),
                    DevClient(id: "com.example.dev.app", redirectURIs: [], publicKeys: key.publicKeySet, teamID: key.teamID),
                ],
                users: [
                    DevUser(subject: "001234.abcdef0123456789abcdef0123456789.1234", email: "alice@example.com", name: "Alice Example"),
                    DevUser(
                        subject: "001234.fedcba9876543210fedcba9876543210.4321", email: "x7k2p9q4m1@privaterelay.appleid.com",
                        name: "Pat Private", isPrivateEmail: true),
                ],
                autoApproveSubject: "001234.abcdef0123456789abcdef0123456789.1234", appleClientKey: key)
        case .firebase:
            return DevProviderConfiguration(
                flavor: .firebase, clients: [DevClient(id: "dev-project", redirectURIs: loopbackRedirects)],
                users: standardUsers, autoApproveSubject: "alice", projectID: "dev-project")
        case .microsoft:
            return microsoftStandard
        case .github:
            return gitHubStandard
        }
    }

    /// The GitHub flavour, ready to use: OAuth app `dev-github-client` (secret
    /// `dev-github-secret`) with loopback redirects, and three users by numeric ID: alice
    /// (`1001`, login `alice-example`, alice@example.com verified, the generic flavour's alice),
    /// bob (`1002`, primary bob@example.com unverified, bob@users.example verified) and mallory
    /// (`1003`, whose only address, alice@example.com, is unverified); alice auto-approved.
    static let gitHubStandard = DevProviderConfiguration(
        flavor: .github,
        clients: [DevClient(id: "dev-github-client", secret: "dev-github-secret", redirectURIs: loopbackRedirects)],
        users: [
            DevUser(subject: "1001", email: "alice@example.com", name: "Alice Example", gitHubLogin: "alice-example"),
            DevUser(
                subject: "1002", email: "bob@example.com", emailVerified: false, name: "Bob Example", gitHubLogin: "bob-example",
                otherEmails: [DevEmail("bob@users.example", verified: true)]),
            DevUser(subject: "1003", email: "alice@example.com", emailVerified: false, name: "Mallory", gitHubLogin: "mallory"),
        ],
        autoApproveSubject: "1001")
}
