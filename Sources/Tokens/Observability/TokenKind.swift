/// A kind of token Federate verifies, as metrics and spans name it (the `kind` label of
/// `federate_verifications_total`). Provider modules may declare their own as static members.
package struct TokenKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake_case name, e.g. `id_token`.
    package let rawValue: String

    /// A kind named `rawValue` (snake_case).
    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// An OpenID Connect ID token.
    package static let idToken = TokenKind(rawValue: "id_token")
    /// A session token the account layer issued.
    package static let session = TokenKind(rawValue: "session")
    /// A back-channel logout token.
    package static let logoutToken = TokenKind(rawValue: "logout_token")
    /// A security event token (RISC, Shared Signals).
    package static let securityEvent = TokenKind(rawValue: "security_event")
    /// A provider's server-to-server notification (Sign in with Apple).
    package static let notification = TokenKind(rawValue: "notification")
    /// A signed UserInfo response.
    package static let signedUserInfo = TokenKind(rawValue: "signed_userinfo")
    /// A client assertion (`private_key_jwt`).
    package static let clientAssertion = TokenKind(rawValue: "client_assertion")
}
