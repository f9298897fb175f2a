public import FederateTokens

// The codes the account layer raises. Docs/ErrorCodes.md is generated from these
// (scripts/gen-error-codes.py).

// MARK: - Accounts

extension FederateError.Code {
    /// Sign-in with a new identity whose email belongs to an existing user (one account per email): sign in with one of that user's providers, then link; carries the email and the pending credential.
    public static let accountExistsWithDifferentCredential: Self = "account_exists_with_different_credential"
    /// The identity (provider ID and subject) already belongs to another user; carries the credential.
    public static let credentialAlreadyInUse: Self = "credential_already_in_use"
    /// The user already has an identity of this provider.
    public static let providerAlreadyLinked: Self = "provider_already_linked"
    /// The email belongs to another user (one account per email); carries the email.
    public static let emailAlreadyInUse: Self = "email_already_in_use"
    /// Reauthentication with a credential that belongs to another user (or to nobody).
    public static let userMismatch: Self = "user_mismatch"
    /// The user has no identity of this provider.
    public static let noSuchProvider: Self = "no_such_provider"
    /// Unlinking would remove the user's last way to sign in.
    public static let lastProvider: Self = "last_provider"
    /// The operation is sensitive and the session's `auth_time` is too old, or was not proven by its provider (an OAuth 2.0 provider without ID tokens): reauthenticate.
    public static let requiresRecentLogin: Self = "requires_recent_login"
    /// Reauthentication with a provider that cannot prove a fresh sign-in: an OAuth 2.0 provider without ID tokens (GitHub ignores `prompt` and sends no `auth_time`) and without a configured freshness proof. Reauthenticate with another linked provider (an OpenID one) instead.
    public static let providerCannotReauthenticate: Self = "provider_cannot_reauthenticate"
    /// The user is disabled.
    public static let userDisabled: Self = "user_disabled"
    /// No user with this uid (deleted, or never existed).
    public static let userNotFound: Self = "user_not_found"
    /// The credential lacks a provider ID or subject, or is otherwise unusable.
    public static let invalidCredential: Self = "invalid_credential"
    /// The session was signed out, or issued before the user's `tokensValidAfter` (Firebase: user-token-expired).
    public static let sessionRevoked: Self = "session_revoked"
    /// The account store failed (database unreachable, I/O, unexpected schema).
    public static let accountStoreFailed: Self = "account_store_failed"
    /// The account store could not answer now: its database is locked by another process or
    /// connection past the busy timeout, unreachable, out of connections, or asked to retry
    /// (a serialization failure). Nothing about the request was decided: a server answers 503
    /// with `Retry-After`, never 401; retry later.
    public static let storeUnavailable: Self = "store_unavailable"
    /// The database's schema is not one this release knows: its version record is newer than
    /// this release's migrations (a newer release migrated it), or a table the version
    /// promises is missing. Nothing was changed: run the release that migrated it (or a newer
    /// one), or point the store at the right database.
    public static let storeSchemaMismatch: Self = "store_schema_mismatch"

    // MARK: Guests, merges and kept provider tokens

    /// As many guest accounts are alive as the service allows (`maximumLiveGuests`): no new
    /// one until some are upgraded or expire. A server answers 503 with `Retry-After`.
    public static let guestCapacityReached: Self = "guest_capacity_reached"
    /// A merge ticket (`AccountErrorContext/mergeTicket`) that is malformed, tampered with,
    /// sealed with a key the service no longer has, expired, used already, issued to another
    /// session, that does not name the account it is used on, or one of whose accounts is gone.
    /// Link the credential again to get a new one.
    public static let invalidMergeTicket: Self = "invalid_merge_ticket"
    /// A merge would absorb the account that linked, a full account, into the credential's
    /// account: only a guest is merged that way, since a full account would be given away on the
    /// strength of an old session. Merge the other way: the credential's account into the one
    /// that linked, from a session of the one that linked.
    public static let mergeSourceNotGuest: Self = "merge_source_not_guest"
    /// A merge would absorb the credential's account (a full account), but the link's
    /// credential did not prove a sign-in at the provider during the link (an ID token's
    /// `auth_time` no earlier than the link's start; an OAuth 2.0 provider without ID tokens
    /// never proves one). Link again, signing in at the provider, then merge.
    public static let mergeRequiresFreshSignIn: Self = "merge_requires_fresh_sign_in"
    /// The accounts were merged, but the application's merge hook failed: its data is still
    /// under the merged account's `uid`. `AccountService.resumePendingMerges()` runs the hook
    /// again for every merge it has not finished.
    public static let mergeHookFailed: Self = "merge_hook_failed"
    /// The account layer holds no usable provider tokens for this identity: none were kept,
    /// the provider refused the refresh token for good (`invalid_grant`), or its refreshed ID
    /// token named another subject (`refreshed_id_token_mismatch`). The person must sign in
    /// with that provider again (reauthenticate, or sign in) to give new ones.
    public static let providerSignInRequired: Self = "provider_sign_in_required"
    /// The account has no passkey with this credential ID (it was removed, or belongs to
    /// another account).
    public static let passkeyNotFound: Self = "passkey_not_found"
    /// A passkey operation on an account service without a passkey configuration
    /// (`AccountServiceConfiguration` `passkeys`).
    public static let passkeysNotConfigured: Self = "passkeys_not_configured"
}
