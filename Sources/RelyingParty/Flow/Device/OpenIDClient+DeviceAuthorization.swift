public import FederateTokens
import Foundation

extension OpenIDClient {
    /// The device-code grant type (RFC 8628 §3.4).
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Starts the device authorization grant (RFC 8628 §3.1) for a machine without a
    /// browser: asks the provider's device authorization endpoint
    /// (`OpenIDClient/deviceAuthorizationEndpoint`: discovery's, else the profile's
    /// fallback) for a device code and a user code, authenticated as this client. `scopes`
    /// always gains `openid`.
    ///
    /// `endpoint_not_available` when neither discovery nor the profile names the endpoint;
    /// `insecure_endpoint` or `invalid_url` when it is not HTTPS (or HTTP on loopback); the
    /// provider's OAuth error or `unexpected_status` when it refuses;
    /// `invalid_device_authorization_response` for an unusable answer.
    public func startDeviceAuthorization(
        scopes: [String] = ["openid", "email", "profile"]
    ) async throws(FederateError) -> DeviceAuthorization {
        guard let endpoint = deviceAuthorizationEndpoint else {
            throw profile.explain(
                FederateError(
                    .endpointNotAvailable, "the provider advertises no device_authorization_endpoint and none was configured"))
        }
        try EndpointSecurity.validate(endpoint, field: "device_authorization_endpoint", destination: metadata.destination)
        var scopeList = scopes.filter { !$0.isEmpty }
        if !scopeList.contains("openid") { scopeList.insert("openid", at: 0) }
        var seen = Set<String>()
        scopeList = scopeList.filter { seen.insert($0).inserted }
        let response = try await postForm(
            authentication.formWithClientID([("scope", scopeList.joined(separator: " "))], clientID: clientID), to: endpoint)
        guard response.status == 200 else {
            throw logged(Self.errorFromResponse(response, endpoint: "device authorization endpoint"), endpoint: endpoint)
        }
        let authorization = try DeviceAuthorization(
            answer: response.body, receivedAt: clock.now, scopes: scopeList, destination: metadata.destination)
        logger.debug(
            "device authorization started",
            metadata: [
                "endpoint": "\(endpoint)", "expires_at": "\(authorization.expiresAt)", "interval": "\(authorization.interval)",
            ])
        return authorization
    }

    /// Polls the token endpoint once (RFC 8628 §3.4). Returns the tokens, the ID token
    /// verified as every ID token is; throws `authorization_pending` while the person has not
    /// answered, `slow_down` when polled too fast, `access_denied` when they refused, and
    /// `expired_token` when the code expired (without a request, when it expired here first).
    func pollDeviceAuthorization(_ authorization: DeviceAuthorization) async throws(FederateError) -> TokenSet {
        guard !authorization.isExpired(at: clock.now) else {
            throw FederateError(.expiredToken, "the device code expired: start the device authorization again")
        }
        let response = try await postToTokenEndpoint([("grant_type", Self.deviceCodeGrantType), ("device_code", authorization.deviceCode)])
        return try await tokenSet(
            from: response, requestedScopes: authorization.scopes, previousRefreshToken: nil, idTokenRequired: true,
            expectations: IDTokenExpectations())
    }

    /// Polls until the person answers (RFC 8628 §3.5): waits `DeviceAuthorization/interval`
    /// between polls, 5 seconds longer after each `slow_down` (up to an hour), and keeps going
    /// on `authorization_pending`. Ends with the tokens, or throws `access_denied`,
    /// `expired_token` (the provider's, or the code's `expires_in` ran out), `cancelled` when
    /// the task is cancelled, or any other error of a poll.
    ///
    /// `sleep` waits between polls; the default is `Task.sleep`, which a cancelled task ends at once.
    public func waitForDeviceAuthorization(
        _ authorization: DeviceAuthorization, sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws(FederateError) -> TokenSet {
        var interval = authorization.interval
        while true {
            guard !authorization.isExpired(at: clock.now) else {
                throw FederateError(.expiredToken, "the device code expired before the sign-in was approved: start again")
            }
            do {
                try await sleep(interval)
            } catch {
                throw FederateError(.cancelled, "the device authorization was cancelled")
            }
            guard !Task.isCancelled else { throw FederateError(.cancelled, "the device authorization was cancelled") }
            do {
                return try await pollDeviceAuthorization(authorization)
            } catch  where error.code == .authorizationPending {
                continue
            } catch  where error.code == .slowDown {
                interval = min(interval + .seconds(5), .seconds(DeviceAuthorization.maximumInterval))
            }
        }
    }
}
