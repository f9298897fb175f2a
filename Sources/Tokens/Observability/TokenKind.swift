/// A kind of token Federate verifies, as metrics and spans name it (the `kind` label of
/// `federate_verifications_total`). Provider modules may declare their own as static members.
public struct TokenKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake_case name, e.g. `id_token`.
    public let rawValue: String

    /// A kind named `rawValue` (snake_case).
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// An OpenID Connect ID token.
    public static let idToken = TokenKind(rawValue: "id_token")
    /// A session token the account layer issued.
    public static let session = TokenKind(rawValue: "session")
    /// A back-channel logout token.
    public static let logoutToken = TokenKind(rawValue: "logout_token")
    /// A security event token (RISC, Shared Signals).
    public static let securityEvent = TokenKind(rawValue: "security_event")
    /// A provider's server-to-server notification (Sign in with Apple).
    public static let notification = TokenKind(rawValue: "notification")
    /// A signed UserInfo response.
    public static let signedUserInfo = TokenKind(rawValue: "signed_userinfo")
    /// A client assertion (`private_key_jwt`).
    public static let clientAssertion = TokenKind(rawValue: "client_assertion")
}
