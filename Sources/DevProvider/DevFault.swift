/// Something the dev provider does wrong on purpose, so tests can prove the relying party notices.
enum DevFault: String, Sendable, Hashable, CaseIterable {
    /// ID tokens name another issuer.
    case wrongIssuer = "wrong_issuer"
    /// ID tokens are for another client.
    case wrongAudience = "wrong_audience"
    /// ID tokens carry another nonce.
    case wrongNonce = "wrong_nonce"
    /// ID tokens expired an hour ago.
    case expiredToken = "expired_token"
    /// ID tokens are issued an hour in the future.
    case futureToken = "future_token"
    /// ID token signatures are corrupted.
    case badSignature = "bad_signature"
    /// ID tokens name a key that is not published.
    case unknownKeyID = "unknown_kid"
    /// ID tokens lack `sub`.
    case missingSubject = "missing_sub"
    /// ID tokens lack `exp`.
    case missingExpiry = "missing_exp"
    /// ID tokens are signed with a fresh key published only from now on: the relying party
    /// must refetch the key set once to accept them.
    case rotateKeys = "rotate_keys"
    /// The authorization endpoint ignores `prompt=login` and `max_age` and approves silently
    /// from the provider's session, as Apple does: a reauthentication must then fail.
    case ignoresPrompt = "ignores_prompt"
    /// The UserInfo endpoint answers for another subject than the ID token's.
    case wrongUserInfoSubject = "wrong_userinfo_sub"
    /// The token endpoint answers 500.
    case serverError = "server_error"
    /// The token endpoint answers after 3 seconds.
    case slowResponse = "slow_response"
    /// The token endpoint answers malformed JSON.
    case malformedJSON = "malformed_json"
    /// The token endpoint announces a body and closes the connection halfway through it.
    case truncatedBody = "truncated_body"
    /// A refresh token that was already rotated out, presented again, revokes its whole token
    /// family — every refresh and access token descended from the same sign-in — as
    /// refresh-token reuse detection does (RFC 9700 §4.14.2; django-oauth-toolkit's
    /// `REFRESH_TOKEN_REUSE_PROTECTION`). Without it a reused token is only refused.
    case revokeFamilyOnReuse = "revoke_family_on_reuse"
}
