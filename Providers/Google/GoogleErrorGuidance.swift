public import FederateTokens

/// What Google's authorization and token error codes mean for the application, appended to
/// the error's message by ``GoogleProvider`` (the code itself stays Google's, so callers can
/// switch on it).
enum GoogleErrorGuidance {
    /// The advice for `code`, or `nil` for a code without specific advice.
    static func guidance(for code: String) -> String? {
        switch code {
        case "admin_policy_enforced":
            return
                "a Google Workspace administrator does not allow this app or these scopes for the account; the user must ask the administrator"
        case "org_internal":
            return
                "the OAuth client is limited to users of one Google Cloud organization; sign in with an account of that organization, or make the consent screen external"
        case "disallowed_useragent":
            return "Google refuses sign-in from embedded web views; open the system browser (or use the platform's sign-in library)"
        case "redirect_uri_mismatch":
            return
                "the redirect_uri is not one registered for this client in the Google Cloud console; register it exactly (scheme, host, port, path)"
        case "invalid_grant":
            return "the code or refresh token is expired, revoked or already used (or PKCE failed): sign the user in again"
        case "access_denied":
            return "the user declined; do not retry without asking"
        case "invalid_client", "deleted_client", "unauthorized_client":
            return "check the client ID and secret and the client type in the Google Cloud console"
        case "invalid_request":
            return "the request is malformed or misses a required parameter"
        default:
            return nil
        }
    }

    /// `error` with Google's guidance appended when its code has some.
    static func explain(_ error: FederateError) -> FederateError {
        error.withGuidance(from: guidance(for:))
    }
}

extension FederateError.Code {
    /// Google: an administrator policy blocks the request.
    public static let adminPolicyEnforced: Self = "admin_policy_enforced"
    /// Google: the app is internal to another organisation.
    public static let orgInternal: Self = "org_internal"
    /// Google: the request came from an embedded web view.
    public static let disallowedUserAgent: Self = "disallowed_useragent"
}
