public import FederateTokens
package import FederateRelyingParty
/// What an identity provider says about the user: the profile part of a ``Credential``.
///
/// Stores keep the typed fields; ``claims`` (the raw ID-token claims) only travels in the
/// ``AuthResult`` of the sign-in that produced it.
public struct ProviderProfile: Sendable, Hashable {
    /// The display name (`name`).
    public var displayName: String?
    /// The email address the provider reports.
    public var email: String?
    /// A picture URL (`picture`).
    public var photoURL: String?
    /// A username, when the provider has one (`preferred_username`).
    public var username: String?
    /// Every claim the provider sent (the ID token's, then UserInfo's where the ID token has no
    /// such member), for application-specific data, read by exact name (`claims["hd"]`). Not persisted.
    public var claims: JSONMembers

    /// Creates a profile.
    public init(
        displayName: String? = nil, email: String? = nil, photoURL: String? = nil, username: String? = nil,
        claims: JSONMembers = [:]
    ) {
        self.displayName = displayName
        self.email = email
        self.photoURL = photoURL
        self.username = username
        self.claims = claims
    }

    /// The profile carried by a verified ID token (`name`, `email`, `picture`, `preferred_username`).
    package init(idToken: IDToken) {
        self.init(
            displayName: idToken.name, email: idToken.email, photoURL: idToken.picture,
            username: idToken["preferred_username"]?.stringValue, claims: idToken.claims)
    }

    /// The profile of a finished sign-in: the ID token's `name`, `email`, `picture` and
    /// `preferred_username`, each completed from UserInfo where the ID token has none, and
    /// every claim of both (OpenID Connect Core §5.3.2).
    package init(signIn: OpenIDSignIn) {
        self.init(
            displayName: signIn.userClaim("name"), email: signIn.email, photoURL: signIn.userClaim("picture"),
            username: signIn.userClaim("preferred_username"), claims: signIn.claims)
    }
}
