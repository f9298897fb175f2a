public import FederateOIDC
public import FederateAccounts
public import FederateRelyingParty
public import FederateTokens

/// Web sign-ins with `response_mode=form_post` whenever `name` or `email` is requested (Apple
/// refuses anything else then) and no `login_hint` (Apple takes none), and revocation of the
/// refresh token or the access token, as account deletion should.
extension AppleProvider: OpenIDSignInProvider {
    /// Server-to-server notifications, bearer ID tokens, warming and token refresh.
    public var capabilities: ProviderCapabilities {
        ProviderCapabilities(events: openIDProvider, bearerTokens: self, warming: openIDProvider, tokenRefresh: openIDProvider)
    }

    /// Completes from the callback's parameters (Apple's `form_post`, with the one-time `user`).
    public func completeSignIn(_ callback: AuthorizationResponse, pending: PendingAuthorization) async throws(FederateError) -> Credential {
        let apple = try AppleCallback(response: callback)
        let signIn = try await openIDProvider.finish(apple.response, pending: pending)
        return try Self.credential(signIn: signIn, user: apple.user, rawNonce: pending.nonce, nonceMode: .raw)
    }
}

extension AppleProvider {
    /// The account layer's credential (provider `apple.com`) from a finished sign-in, with
    /// Apple's claims of the verified ID token (``AppleIdentity``). On the first sign-in its
    /// profile carries the name and email from Apple's one-time `user` JSON — the only time
    /// Apple sends the name — so the account layer stores them. `nonceMode` says what the ID
    /// token carries for `rawNonce` (``AppleNonceMode/sha256Hex`` for a code from Apple's native
    /// SDK sent with a hashed nonce). `email_verified` is read Apple's way (a JSON Boolean or
    /// the string `"true"` or `"false"`).
    static func credential(
        signIn: OpenIDSignIn, user: AppleUser?, rawNonce: String?, nonceMode: AppleNonceMode
    ) throws(FederateError) -> Credential {
        let identity = try AppleIdentity(signIn.idToken)
        let profile = ProviderProfile(
            displayName: user?.displayName, email: user?.email ?? signIn.idToken.email, claims: signIn.idToken.claims)
        return Credential(
            providerID: providerID, signIn: signIn, rawNonce: rawNonce, nonceClaim: rawNonce.map(nonceMode.expectedClaim(for:)),
            emailVerified: identity.emailVerified, profile: profile)
    }
}

extension AppleProvider: BearerTokenSource {
    /// Apple ID tokens addressed to the Services ID or one of the bundle IDs, with Apple's
    /// keys from the provider's cache, fetched on first use.
    public func bearerVerifier() -> any TokenVerifier {
        DeferredTokenVerifier { () throws(FederateError) in
            try AppleIDTokenVerifier(
                clientIDs: IdentifierSet(clientIDs), endpoints: endpoints, keys: try cache.keySet(url: endpoints.keysURL),
                clock: cache.clock, observability: cache.observability)
        }
    }
}
