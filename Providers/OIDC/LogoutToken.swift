import FederateTokens
import Foundation

/// A verified back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4).
struct LogoutToken: Sendable {
    /// The issuer.
    let issuer: String
    /// The subject whose sessions end, if given (at least one of `subject` and `sessionID` is).
    let subject: String?
    /// The provider session that ends (`sid`), if given.
    let sessionID: String?
    /// The token's unique ID, for replay detection by the caller.
    let tokenID: String
    /// When it was issued.
    let issuedAt: Date
    /// Every claim.
    let claims: JSONMembers
}
