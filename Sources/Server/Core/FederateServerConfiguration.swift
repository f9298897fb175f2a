public import Federate
import Foundation

/// What `FederateRoutes` serve: the providers, the account layer, and how cookies are made.
public struct FederateServerConfiguration: Sendable {
    /// The server's public origin (`https://app.example`, or `http://127.0.0.1:8080` in
    /// development): redirect URIs and the CSRF check are built from it.
    public var origin: String
    /// The providers, by the route name used in `/auth/{name}/start` (`google`, `apple`, `dev`)
    /// and by provider ID.
    public var providers: ProviderRegistry
    /// The account layer.
    public var accounts: AccountService
    /// Seals pending authorizations into a cookie, so any server instance finishes a flow.
    package var sealer: PendingAuthorizationSealer
    /// Plain-text files answered 200 directly at their exact path, for a provider's domain
    /// check (`[AppleProvider.domainAssociationPath: contents]` for Sign in with Apple).
    package var staticFiles: [String: String]
    /// Where routes live (`/auth`), and the JSON API (`/me`).
    var authPath: String
    /// Where the browser goes after a sign-in without `returnTo`.
    var defaultReturnTo: String
    /// Whether `POST {auth}/guest` creates guest accounts (`AccountService.signInAsGuest()`).
    /// Off by default: an open route that creates accounts is for applications that want it.
    public var allowsGuests = false
    /// How many guest accounts one client may create (``RateLimit/guests`` by default: 5 at
    /// once, then one a minute); past it `POST {auth}/guest` answers 429 `rate_limited` with
    /// `Retry-After`. The account layer also caps the guests alive at once
    /// (`AccountServiceConfiguration`'s `maximumLiveGuests`).
    public var guestRateLimit = RateLimit.guests
    /// How many anonymous passkey requests (`POST {auth}/passkey/options` and `POST
    /// {auth}/passkey`, counted together) one client may make (``RateLimit/passkeys``: 30 at
    /// once, then one every two seconds); past it 429 `rate_limited` with `Retry-After`.
    public var passkeyRateLimit = RateLimit.passkeys
    /// The addresses (`10.0.0.2`, `::1`) of the reverse proxies in front of this server. A
    /// request whose connection comes from one of them is counted, for rate limits, as the
    /// last address of its `X-Forwarded-For` that is not one of them; any other request as
    /// its connection's address, whatever its headers say (an entry of the header that is no
    /// address counts as the proxy that passed it on). An entry here that is not an IP address
    /// is logged and ignored. Empty by default: no header is believed.
    public var trustedProxies: [String] = []

    /// Creates a configuration; `providers` by route name (`["google": google]` serves
    /// `/auth/google/…`). Throws `invalid_configuration` for a route name that is not 1–64 of
    /// `A-Z a-z 0-9 . _ -`, or two providers with one provider ID (`ProviderRegistry`).
    public init(
        origin: String, providers: [String: any SignInProvider], accounts: AccountService, sealer: PendingAuthorizationSealer,
        staticFiles: [String: String] = [:], authPath: String = "/auth", defaultReturnTo: String = "/"
    ) throws(FederateError) {
        guard providers["signout"] == nil else {
            throw FederateError(.invalidConfiguration, "'signout' is the sign-out route, not a provider's route name")
        }
        self.origin = origin
        self.providers = try ProviderRegistry(providers)
        self.accounts = accounts
        self.sealer = sealer
        self.staticFiles = staticFiles
        self.authPath = authPath
        self.defaultReturnTo = defaultReturnTo
    }

    /// Whether cookies carry `Secure`: always, except plain-HTTP loopback development.
    var secureCookies: Bool { Self.usesSecureCookies(origin: origin) }

    /// Whether a server at `origin` sets `Secure` (and `__Host-`) cookies: always, except
    /// plain-HTTP loopback development.
    static func usesSecureCookies(origin: String) -> Bool {
        !(origin.hasPrefix("http://127.0.0.1") || origin.hasPrefix("http://[::1]") || origin.hasPrefix("http://localhost"))
    }

    /// The redirect URI registered for provider `name`.
    package func redirectURI(for name: String) -> String { origin + authPath + "/" + name + "/callback" }
}
