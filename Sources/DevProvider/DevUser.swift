import Foundation

/// A test user the dev provider can sign in.
public struct DevUser: Sendable, Hashable {
    /// The stable subject (`sub`).
    public var subject: String
    /// The email address.
    public var email: String
    /// Whether the email is verified.
    package var emailVerified: Bool
    /// The display name.
    package var name: String
    /// Google flavour: the Workspace domain, sent as the `hd` claim.
    var hostedDomain: String?
    /// Google flavour: scopes this user leaves unticked on the consent screen (granular consent).
    package var refusedScopes: Set<String>
    /// Apple flavour: whether the email is a private relay address (`is_private_email`).
    package var isPrivateEmail: Bool
    /// How this user authenticates when the sign-in page is not shown (`login_hint`, the
    /// auto-approve user), and the page's preselected method: its ID tokens then carry this
    /// method's `acr` and `amr`. `nil`: no `acr`/`amr`, unless a request asks for an `acr`
    /// (then `password`). Step-up (`Docs/StepUp.md`).
    var authenticationMethod: DevAuthenticationMethod?
    /// GitHub flavour: the login name (`/user`'s `login`); renamed with ``DevProvider/renameGitHubUser(subject:to:)``.
    var gitHubLogin: String?
    /// GitHub flavour: the user's other addresses, after ``email`` (the primary one) in `/user/emails`.
    var otherEmails: [DevEmail]
    /// The method and `acr` of the sign-in a grant was issued for (set per login).
    var login: DevLogin?

    /// Creates a user with a verified (or unverified) email and a display name. The flavours'
    /// other user settings: the JSON configuration (``DevProviderConfiguration/init(json:defaultFlavor:)``).
    public init(subject: String, email: String, emailVerified: Bool = true, name: String) {
        self.init(subject: subject, email: email, emailVerified: emailVerified, name: name, hostedDomain: nil)
    }

    /// Creates a user with every setting.
    init(
        subject: String, email: String, emailVerified: Bool = true, name: String, hostedDomain: String? = nil,
        refusedScopes: Set<String> = [], isPrivateEmail: Bool = false, authenticationMethod: DevAuthenticationMethod? = nil,
        gitHubLogin: String? = nil, otherEmails: [DevEmail] = []
    ) {
        self.gitHubLogin = gitHubLogin
        self.otherEmails = otherEmails
        self.authenticationMethod = authenticationMethod
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.hostedDomain = hostedDomain
        self.refusedScopes = refusedScopes
        self.isPrivateEmail = isPrivateEmail
    }

    /// The first word of ``name`` (Apple's `firstName`, Google's `given_name`).
    var givenName: String { String(name.split(separator: " ").first ?? Substring(name)) }
    /// The rest of ``name`` (Apple's `lastName`, Google's `family_name`).
    var familyName: String { name.split(separator: " ").dropFirst().joined(separator: " ") }
}

/// One of a GitHub user's email addresses (GitHub flavour), with whether GitHub verified it.
struct DevEmail: Sendable, Hashable {
    /// The address.
    var address: String
    /// Whether it is verified.
    var verified: Bool

    /// Creates an address.
    init(_ address: String, verified: Bool) {
        self.address = address
        self.verified = verified
    }
}
