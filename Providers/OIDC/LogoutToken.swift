package import FederateTokens
package import Foundation

/// A verified back-channel logout token (OpenID Connect Back-Channel Logout 1.0 §2.4).
package struct LogoutToken: Sendable {
    /// The issuer.
    package let issuer: String
    /// The subject whose sessions end, if given (at least one of `subject` and `sessionID` is).
    package let subject: String?
    /// The provider session that ends (`sid`), if given.
    package let sessionID: String?
    /// The token's unique ID, for replay detection by the caller.
    package let tokenID: String
    /// When it was issued.
    package let issuedAt: Date
    /// Every claim.
    package let claims: JSONMembers
}
