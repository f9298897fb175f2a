/// The result of ``AccountService/signIn(with:)``, ``AccountService/link(_:with:authenticatedAfter:session:)`` and
/// ``AccountService/reauthenticate(_:with:authenticatedAfter:)``.
///
/// Contains secrets (the session token, the provider's tokens): the `description` is redacted.
public struct AuthResult: Sendable, CustomStringConvertible {
    /// The user, as stored after the operation.
    public let user: User
    /// The provider's information about this sign-in.
    public let additionalUserInfo: AdditionalUserInfo
    /// The credential used (with the provider's tokens).
    public let credential: Credential
    /// The session issued (sign-in and reauthentication; `nil` for linking).
    public let session: AccountSession?
    /// The session token to hand to the client (secret; `nil` for linking).
    public let sessionToken: String?

    /// Creates a result.
    init(
        user: User, additionalUserInfo: AdditionalUserInfo, credential: Credential, session: AccountSession?, sessionToken: String?
    ) {
        self.user = user
        self.additionalUserInfo = additionalUserInfo
        self.credential = credential
        self.session = session
        self.sessionToken = sessionToken
    }

    /// Redacted.
    public var description: String {
        "AuthResult(uid: \(user.uid), provider: \(additionalUserInfo.providerID), new: \(additionalUserInfo.isNewUser), session: \(session.map(\.sessionID) ?? "-"), tokens redacted)"
    }
}
