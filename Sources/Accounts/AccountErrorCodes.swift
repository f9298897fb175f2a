public import FederateTokens

extension FederateError.Code {
    /// A merge ticket (`AccountErrorContext/mergeTicket`) that is malformed, tampered with,
    /// sealed with a key the service no longer has, expired, or that does not name the account
    /// it is used on. Link the credential again to get a new one.
    public static let invalidMergeTicket: Self = "invalid_merge_ticket"
    /// The accounts were merged, but the application's merge hook failed: its data is still
    /// under the merged account's `uid`. `AccountService.resumePendingMerges()` runs the hook
    /// again for every merge it has not finished.
    public static let mergeHookFailed: Self = "merge_hook_failed"
    /// The account layer holds no usable provider tokens for this identity: none were kept,
    /// or the provider refused the refresh token for good (`invalid_grant`). The person must
    /// sign in with that provider again (reauthenticate, or sign in) to give new ones.
    public static let providerSignInRequired: Self = "provider_sign_in_required"
}
