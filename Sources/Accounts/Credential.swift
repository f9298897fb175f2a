public import FederateTokens
public import FederateRelyingParty
public import Foundation

/// What a provider hands the account layer after a successful sign-in: who the user is at
/// the provider, the provider's tokens and profile.
///
/// Build it only from a *verified* ID token (`IDTokenVerifier`, `OpenIDClient`): the
/// account layer trusts its provider ID and subject. Its `description` is redacted (no
/// tokens, no nonce).
public struct Credential: Sendable, CustomStringConvertible {
    /// The provider ID: `google.com`, `apple.com`, `oidc.<name>`.
    public let providerID: String
    /// The stable user identifier at the provider (`sub`).
    public let subject: String
    /// The email the provider reports, if any.
    package let email: String?
    /// Whether the provider says the email is verified.
    package let emailVerified: Bool
    /// The verified ID token, when the credential came from one.
    public let idToken: IDToken?
    /// The provider's access and refresh tokens (secrets), and when the access token expires.
    public let tokens: ProviderTokens
    /// The raw nonce sent in the authorization request, if any (secret).
    package let rawNonce: String?
    /// What the ID token's `nonce` must be: the raw nonce, or what the provider module derived
    /// from it (Apple's native SDK sends its SHA-256 in hex). `nil` when there is no nonce.
    package let nonceClaim: String?
    /// The provider's profile of the user.
    public let profile: ProviderProfile
    /// The scopes the provider granted with this sign-in: its token response's `scope`, else
    /// those asked for; empty when unknown. With Google's granular consent the user may untick
    /// some, so check a feature's scope here before using it.
    public let grantedScopes: [String]
    /// The ID token as the provider sent it (compact JWS, a secret), when the credential came
    /// from a sign-in that returned one: what RP-initiated logout sends as `id_token_hint`.
    package let rawIDToken: String?
    /// When the provider says the user authenticated, for a credential without an ID token
    /// whose provider module has a freshness proof (``init(oauthProviderID:subject:email:emailVerified:tokens:profile:authenticatedAt:)``);
    /// `nil` otherwise (an ID token's `auth_time` counts instead).
    package let authenticatedAt: Date?
    /// Whether the credential came from an OAuth 2.0 provider's user endpoint rather than an
    /// ID token or an assertion the caller vouches for.
    let fromUserEndpoint: Bool

    /// Whether the provider proved when the user authenticated: an ID token (its `auth_time`,
    /// else the sign-in itself), an identity the caller vouches for, or an OAuth 2.0
    /// provider's freshness proof (`authenticatedAt`). Without it — an OAuth 2.0 provider
    /// with no ID token and no freshness proof — the session it signs in never counts as a
    /// recent sign-in, and it cannot reauthenticate (`provider_cannot_reauthenticate`).
    var provesAuthenticationTime: Bool { !fromUserEndpoint || authenticatedAt != nil }

    /// A credential from a verified ID token. `emailVerified` defaults to the token's Boolean
    /// `email_verified` (a provider module that sends it otherwise passes its own reading);
    /// `nonceClaim` defaults to `rawNonce`.
    /// `accessTokenExpiresAt` is when the access token expires, if the provider said (kept
    /// tokens are refreshed before it, ``AccountService/accessToken(for:providerID:)``).
    package init(
        providerID: String, idToken: IDToken, accessToken: String? = nil, refreshToken: String? = nil,
        rawNonce: String? = nil, nonceClaim: String? = nil, emailVerified: Bool? = nil, profile: ProviderProfile? = nil,
        accessTokenExpiresAt: Date? = nil, rawIDToken: String? = nil, grantedScopes: [String] = []
    ) {
        self.grantedScopes = grantedScopes
        self.rawIDToken = rawIDToken
        self.authenticatedAt = nil
        self.fromUserEndpoint = false
        self.providerID = providerID
        self.subject = idToken.subject
        self.email = idToken.email
        self.emailVerified = emailVerified ?? idToken.emailVerified ?? false
        self.idToken = idToken
        self.tokens = ProviderTokens(accessToken: accessToken, refreshToken: refreshToken, accessTokenExpiresAt: accessTokenExpiresAt)
        self.rawNonce = rawNonce
        self.nonceClaim = nonceClaim ?? rawNonce
        self.profile = profile ?? ProviderProfile(idToken: idToken)
    }

    /// A credential from a finished sign-in (`OpenIDClient/finish(_:pending:)`): its verified ID
    /// token, its tokens, and the profile of the ID token, completed from UserInfo when the
    /// provider module fetched it (the ID token's values win; `email_verified` comes from
    /// whichever source gave the email).
    public init(providerID: String, signIn: OpenIDSignIn, rawNonce: String? = nil) {
        self.init(providerID: providerID, signIn: signIn, rawNonce: rawNonce, nonceClaim: nil, emailVerified: nil, profile: nil)
    }

    /// ``init(providerID:signIn:rawNonce:)`` with a provider module's readings: what the ID
    /// token's `nonce` must be (`nil`: `rawNonce`), whether the email is verified (`nil`: the
    /// sign-in's reading) and the profile (`nil`: the sign-in's).
    package init(
        providerID: String, signIn: OpenIDSignIn, rawNonce: String?, nonceClaim: String?, emailVerified: Bool?, profile: ProviderProfile?
    ) {
        self.init(
            providerID: providerID, subject: signIn.idToken.subject, email: signIn.email,
            emailVerified: emailVerified ?? signIn.emailVerified, idToken: signIn.idToken, tokens: ProviderTokens(signIn.tokens),
            rawNonce: rawNonce, nonceClaim: nonceClaim ?? rawNonce, profile: profile ?? ProviderProfile(signIn: signIn),
            rawIDToken: signIn.tokens.idToken, authenticatedAt: nil, fromUserEndpoint: false, grantedScopes: signIn.tokens.grantedScopes)
    }

    /// A credential from an identity established some other way (an already verified
    /// assertion, a test). The caller vouches for `subject`.
    public init(
        providerID: String, subject: String, email: String? = nil, emailVerified: Bool = false,
        tokens: ProviderTokens = ProviderTokens(), rawNonce: String? = nil, profile: ProviderProfile = ProviderProfile()
    ) {
        self.grantedScopes = []
        self.rawIDToken = nil
        self.authenticatedAt = nil
        self.fromUserEndpoint = false
        self.providerID = providerID
        self.subject = subject
        self.email = email ?? profile.email
        self.emailVerified = emailVerified
        self.idToken = nil
        self.tokens = tokens
        self.rawNonce = rawNonce
        self.nonceClaim = rawNonce
        self.profile = profile
    }

    /// A credential for a user of an OAuth 2.0 provider that issues no ID token (GitHub, an
    /// OAuth server configured from data), read by its provider module from the provider's
    /// user endpoint: `subject` must be the provider's immutable user ID (never a login name
    /// or an email), and `emailVerified` true only when the provider says so.
    ///
    /// Nothing signed says when the user authenticated. Pass `authenticatedAt` only from a
    /// documented freshness proof of the provider; without one, the session this credential
    /// signs in never counts as a recent sign-in (`requires_recent_login`), and reauthenticating
    /// with it fails with `provider_cannot_reauthenticate`.
    public init(
        oauthProviderID providerID: String, subject: String, email: String?, emailVerified: Bool, tokens: ProviderTokens,
        profile: ProviderProfile, authenticatedAt: Date? = nil
    ) {
        self.init(
            providerID: providerID, subject: subject, email: email, emailVerified: emailVerified && email != nil, idToken: nil,
            tokens: tokens,
            rawNonce: nil, nonceClaim: nil, profile: profile, rawIDToken: nil, authenticatedAt: authenticatedAt, fromUserEndpoint: true,
            grantedScopes: [])
    }

    /// Every field as given.
    init(
        providerID: String, subject: String, email: String?, emailVerified: Bool, idToken: IDToken?, tokens: ProviderTokens,
        rawNonce: String?, nonceClaim: String?, profile: ProviderProfile, rawIDToken: String?, authenticatedAt: Date?,
        fromUserEndpoint: Bool, grantedScopes: [String]
    ) {
        self.grantedScopes = grantedScopes
        self.rawIDToken = rawIDToken
        self.authenticatedAt = authenticatedAt
        self.fromUserEndpoint = fromUserEndpoint
        self.providerID = providerID
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.idToken = idToken
        self.tokens = tokens
        self.rawNonce = rawNonce
        self.nonceClaim = nonceClaim
        self.profile = profile
    }

    /// Redacted: provider ID and subject only.
    public var description: String {
        "Credential(provider: \(providerID), sub: \(subject), tokens redacted)"
    }
}
