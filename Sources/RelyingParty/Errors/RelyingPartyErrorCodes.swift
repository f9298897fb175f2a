public import FederateTokens

// The codes the relying-party layer raises: talking to a provider (discovery, keys, HTTP) and
// the authorization flow. Docs/ErrorCodes.md is generated from these
// (scripts/gen-error-codes.py).

// MARK: - Discovery, keys and transport

extension FederateError.Code {
    /// The key set could not be fetched and no usable cached copy exists.
    public static let keyFetchFailed: Self = "key_fetch_failed"
    /// The discovery document's `issuer` differs from the issuer it was fetched for.
    public static let discoveryIssuerMismatch: Self = "discovery_issuer_mismatch"
    /// The discovery document is malformed or lacks a required field.
    public static let invalidDiscoveryDocument: Self = "invalid_discovery_document"
    /// The discovery document could not be fetched.
    public static let discoveryFailed: Self = "discovery_failed"
    /// An endpoint or issuer URL is not HTTPS (and not a loopback host).
    public static let insecureEndpoint: Self = "insecure_endpoint"
    /// A URL could not be parsed or is not acceptable.
    public static let invalidURL: Self = "invalid_url"
    /// The HTTP request failed at the transport level (connection refused, TLS, reset).
    public static let httpFailed: Self = "http_failed"
    /// The HTTP request did not complete within its timeout.
    public static let httpTimeout: Self = "http_timeout"
    /// The task that made the request was cancelled.
    public static let cancelled: Self = "cancelled"
    /// The HTTP response body exceeded the configured limit.
    public static let responseTooLarge: Self = "response_too_large"
    /// The server answered with an unexpected HTTP status (including redirects, which are not followed).
    public static let unexpectedStatus: Self = "unexpected_status"
}

// MARK: - Authorization flow

extension FederateError.Code {
    /// The callback's `state` differs from the one sent (or is missing): possible CSRF.
    public static let stateMismatch: Self = "state_mismatch"
    /// The callback's RFC 9207 `iss` is missing (when required) or differs from the issuer: possible mix-up.
    public static let callbackIssuerMismatch: Self = "callback_issuer_mismatch"
    /// The callback is malformed: duplicated or missing parameters.
    public static let invalidCallback: Self = "invalid_callback"
    /// The pending authorization expired, or its sealed form could not be opened.
    public static let invalidPendingAuthorization: Self = "invalid_pending_authorization"
    /// The request asked for something Federate refuses (e.g. the implicit flow).
    public static let unsupportedResponseType: Self = "unsupported_response_type"
    /// The token endpoint's answer is malformed or incomplete.
    public static let invalidTokenResponse: Self = "invalid_token_response"
    /// A refreshed ID token changed `iss` or `sub`, or lacks the client in `aud`.
    public static let refreshedIDTokenMismatch: Self = "refreshed_id_token_mismatch"
    /// UserInfo's `sub` differs from the ID token's `sub`.
    public static let userinfoSubjectMismatch: Self = "userinfo_subject_mismatch"
    /// The provider does not offer the endpoint this call needs.
    public static let endpointNotAvailable: Self = "endpoint_not_available"
    /// The loopback listener timed out waiting for the browser's redirect.
    public static let callbackTimeout: Self = "callback_timeout"
    /// The app's own step that opens the authorization URL in a browser failed.
    public static let browserUnavailable: Self = "browser_unavailable"
    /// A provider's user endpoint (an OAuth 2.0 provider without ID tokens) answered something that identifies no one: not JSON of a JSON type, nested too deep, no immutable user ID, an ID that is not a string or a whole number from 1 to 2^53-1, or an email that is not a plain address. Nothing is signed in.
    public static let invalidUserResponse: Self = "invalid_user_response"

    // Provider error codes (RFC 6749 §4.1.2.1 and §5.2, OpenID Connect Core §3.1.2.6).
    /// The user or the provider refused the request.
    public static let accessDenied: Self = "access_denied"
    /// The request is malformed.
    public static let invalidRequest: Self = "invalid_request"
    /// The code or refresh token is invalid, expired or revoked (on refresh: sign the user in again).
    public static let invalidGrant: Self = "invalid_grant"
    /// Client authentication failed.
    public static let invalidClient: Self = "invalid_client"
    /// The client may not use this grant.
    public static let unauthorizedClient: Self = "unauthorized_client"
    /// A requested scope is invalid.
    public static let invalidScope: Self = "invalid_scope"
    /// The provider requires an interactive login (`prompt=none` failed).
    public static let loginRequired: Self = "login_required"
    /// The provider requires consent (`prompt=none` failed).
    public static let consentRequired: Self = "consent_required"
    /// The redirect URI is not registered.
    public static let redirectURIMismatch: Self = "redirect_uri_mismatch"
    /// RFC 8693 §2.2.2 / RFC 8707: the server refused the requested `resource` or `audience` (the provider's code, kept as sent).
    public static let invalidTarget: Self = "invalid_target"
    /// The server does not support the grant asked for (`client_credentials`, token exchange), or not for this client (the provider's code, kept as sent).
    public static let unsupportedGrantType: Self = "unsupported_grant_type"
}
