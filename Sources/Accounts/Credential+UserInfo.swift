public import FederateTokens
public import FederateRelyingParty
extension Credential {
    /// This credential with what its ID token lacks filled in from the provider's UserInfo
    /// response (OpenID Connect Core §5.3.2): `email` with its `email_verified`, `name`,
    /// `picture` and `preferred_username`. The ID token's values win where both have one;
    /// `email_verified` always comes from whichever source gave the email. The UserInfo `sub`
    /// must already have been checked against the ID token's (`OpenIDClient/userInfo(accessToken:expectedSubject:)`).
    package func completed(withUserInfo claims: JSONMembers) -> Credential {
        let fromIDToken = idToken?.email != nil
        let email = email ?? claims["email"]?.stringValue
        let emailVerified: Bool
        if fromIDToken || email == nil {
            emailVerified = self.emailVerified
        } else {
            if case .bool(let verified)? = claims["email_verified"] { emailVerified = verified } else { emailVerified = false }
        }
        var merged = profile.claims.dictionary
        for name in claims.names where merged[name] == nil { merged[name] = claims[name] }
        let profile = ProviderProfile(
            displayName: profile.displayName ?? claims["name"]?.stringValue, email: profile.email ?? email,
            photoURL: profile.photoURL ?? claims["picture"]?.stringValue,
            username: profile.username ?? claims["preferred_username"]?.stringValue, claims: JSONMembers(merged))
        return Credential(
            providerID: providerID, subject: subject, email: email, emailVerified: emailVerified, idToken: idToken, tokens: tokens,
            rawNonce: rawNonce, nonceClaim: nonceClaim, profile: profile, rawIDToken: rawIDToken,
            authenticatedAt: authenticatedAt, fromUserEndpoint: fromUserEndpoint, grantedScopes: grantedScopes)
    }
}

extension OpenIDClient {
    /// `credential` completed from UserInfo when the provider advertises a `userinfo_endpoint`
    /// and the sign-in produced an access token: the response's `sub` must equal the ID
    /// token's, byte for byte (`userinfo_subject_mismatch`), and a signed response goes
    /// through the signed-userinfo rules. Without an endpoint, `credential` as it is.
    public func completingWithUserInfo(_ credential: Credential) async throws(FederateError) -> Credential {
        guard metadata.userinfoEndpoint != nil, let accessToken = credential.tokens.accessToken else { return credential }
        let claims = try await userInfo(accessToken: accessToken, expectedSubject: credential.subject)
        return credential.completed(withUserInfo: claims)
    }
}
