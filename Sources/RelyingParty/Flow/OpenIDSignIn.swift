public import FederateTokens

/// A finished OpenID Connect sign-in (``OpenIDClient/finish(_:pending:)``): the token endpoint's
/// answer with its verified ID token, which is never absent, and what the provider's UserInfo
/// added when a provider module asked for it.
///
/// Holds bearer credentials: its `description` is redacted; never log its fields.
public struct OpenIDSignIn: Sendable, CustomStringConvertible {
    /// The token endpoint's answer: access and refresh tokens, expiry, granted scopes.
    public let tokens: TokenSet
    /// The verified ID token: signature, issuer, audience, nonce, `at_hash` and `max_age` checked.
    public let idToken: IDToken
    /// The UserInfo claims, when they were fetched (their `sub` equals the ID token's, byte
    /// for byte); `nil` otherwise.
    let userInfo: JSONMembers?

    /// A sign-in from `tokens`, which must carry a verified ID token (`invalid_token_response`
    /// otherwise: the one place that rule is written), and `userInfo` already checked against it.
    package init(tokens: TokenSet, userInfo: JSONMembers? = nil) throws(FederateError) {
        guard let idToken = tokens.idTokenClaims else {
            throw FederateError(.invalidTokenResponse, "the token response has no verified ID token")
        }
        self.tokens = tokens
        self.idToken = idToken
        self.userInfo = userInfo
    }

    /// The access token (`tokens.accessToken`).
    public var accessToken: String { tokens.accessToken }

    // MARK: The ID token completed by UserInfo (OpenID Connect Core §5.3.2)

    /// The email: the ID token's, else UserInfo's.
    package var email: String? { idToken.email ?? userInfo?["email"]?.stringValue }

    /// Whether ``email`` is verified, said by the source that gave it: the ID token's Boolean
    /// `email_verified`, or UserInfo's when the email came from there; `false` when absent or
    /// not a JSON Boolean.
    package var emailVerified: Bool {
        guard idToken.email == nil, email != nil else { return idToken.emailVerified ?? false }
        if case .bool(let verified)? = userInfo?["email_verified"] { return verified }
        return false
    }

    /// A string claim about the user (`name`, `picture`, `preferred_username`): the ID
    /// token's, else UserInfo's.
    package func userClaim(_ name: String) -> String? {
        idToken[name]?.stringValue ?? userInfo?[name]?.stringValue
    }

    /// Every claim: the ID token's, then UserInfo's where the ID token has no such member.
    package var claims: JSONMembers {
        guard let userInfo else { return idToken.claims }
        var merged = idToken.claims.dictionary
        for name in userInfo.names where merged[name] == nil { merged[name] = userInfo[name] }
        return JSONMembers(merged)
    }

    /// Redacted.
    public var description: String {
        "OpenIDSignIn(sub: \(idToken.subject), userInfo: \(userInfo == nil ? "no" : "yes"), \(tokens))"
    }
}

extension OpenIDClient {
    /// `signIn` completed from UserInfo when the provider advertises a `userinfo_endpoint`:
    /// the response's `sub` must equal the ID token's, byte for byte (`userinfo_subject_mismatch`),
    /// and a signed response goes through the signed-userinfo rules. Without an endpoint,
    /// `signIn` as it is.
    package func completingWithUserInfo(_ signIn: OpenIDSignIn) async throws(FederateError) -> OpenIDSignIn {
        guard metadata.userinfoEndpoint != nil else { return signIn }
        let claims = try await userInfo(accessToken: signIn.accessToken, expectedSubject: signIn.idToken.subject)
        return try OpenIDSignIn(tokens: signIn.tokens, userInfo: claims)
    }
}
