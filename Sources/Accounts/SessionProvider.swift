/// The provider identity behind a session, and the provider's own session when its ID token
/// named one (`sid`, OpenID Connect Back-Channel Logout 1.0 §2.1).
package struct SessionProvider: Sendable, Hashable {
    /// The provider ID (`google.com`, `oidc.<name>`).
    package let providerID: String
    /// The user's subject at the provider.
    package let subject: String
    /// The provider's session ID, if its ID token carried one.
    package let sessionID: String?

    /// Creates the value.
    init(providerID: String, subject: String, sessionID: String?) {
        self.providerID = providerID
        self.subject = subject
        self.sessionID = sessionID
    }

    /// The provider of `credential`'s sign-in.
    init(credential: Credential) {
        self.init(providerID: credential.providerID, subject: credential.subject, sessionID: credential.idToken?.sessionID)
    }

    /// The `AccountStore.endSessions(key:validAfter:expiresAt:)` key of every session of this
    /// provider identity. Lengths are spelled out, so no two identities share a key.
    package static func identityKey(providerID: String, subject: String) -> String {
        "identity:\(providerID.utf8.count):\(providerID)\(subject)"
    }

    /// The key of every session of the provider's session `sessionID`.
    static func providerSessionKey(providerID: String, sessionID: String) -> String {
        "provider-session:\(providerID.utf8.count):\(providerID)\(sessionID)"
    }

    /// The keys that can end this session.
    var endKeys: [String] {
        [Self.identityKey(providerID: providerID, subject: subject)]
            + (sessionID.map { [Self.providerSessionKey(providerID: providerID, sessionID: $0)] } ?? [])
    }
}
