public import FederateTokens
public import Foundation

/// A verified back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4).
public struct LogoutToken: Sendable {
    /// The issuer.
    public let issuer: String
    /// The subject whose sessions end, if given (at least one of `subject` and `sessionID` is).
    public let subject: String?
    /// The provider session that ends (`sid`), if given.
    public let sessionID: String?
    /// The token's unique ID, for replay detection by the caller.
    public let tokenID: String
    /// When it was issued.
    public let issuedAt: Date
    /// Every claim.
    public let claims: JSONMembers
}
