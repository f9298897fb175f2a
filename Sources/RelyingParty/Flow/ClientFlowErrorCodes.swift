public import FederateTokens

extension FederateError.Code {
    /// The provider requires pushed authorization requests (`require_pushed_authorization_requests`, RFC 9126): pass a `delivery` to `OpenIDClient.authorizationRequest(providerID:redirectURI:delivery:...)`, which then pushes it.
    public static let pushedAuthorizationRequired: Self = "pushed_authorization_required"
    /// The pushed-authorization endpoint answered success without a usable `request_uri` and `expires_in` (a positive whole number of seconds, at most a day): nothing is sent to the browser.
    public static let invalidPushedAuthorizationResponse: Self = "invalid_pushed_authorization_response"
    /// The pushed request's `request_uri` expired before the redirect was built: push the request again.
    public static let requestURIExpired: Self = "request_uri_expired"
    /// The device-authorization endpoint answered success without a usable `device_code`, `user_code`, `verification_uri`, `expires_in` or `interval` (RFC 8628 §3.2).
    public static let invalidDeviceAuthorizationResponse: Self = "invalid_device_authorization_response"
    /// RFC 8628: the user has not yet approved the device; polling continues after the interval (seen only from a single poll).
    public static let authorizationPending: Self = "authorization_pending"
    /// RFC 8628: the device polled too fast; polling continues with the interval raised by 5 seconds (seen only from a single poll).
    public static let slowDown: Self = "slow_down"
    /// RFC 8628: the device code expired before the user approved it (answered by the provider, or the code's `expires_in` ran out while polling): start again.
    public static let expiredToken: Self = "expired_token"
}
