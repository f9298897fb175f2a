package import FederateTokens

/// Where a native or command-line app receives its authorization response (RFC 8252): a
/// loopback listener (`LoopbackRedirectListener`, in FederateLoopback), or an app's own
/// custom-scheme handler. Provider modules drive a sign-in through it without knowing how
/// the redirect arrives.
package protocol RedirectReceiver: Sendable {
    /// The redirect URI to send in the authorization request.
    var redirectURI: String { get }

    /// From now on, only a callback carrying exactly this `state` is taken.
    func expect(state: String)

    /// Waits for the callback. Throws `FederateError/Code/callbackTimeout` when `timeout`
    /// passes first.
    func waitForCallback(timeout: Duration) async throws(FederateError) -> AuthorizationResponse

    /// Tells the receiver how the sign-in ended (a listener answers the browser's page).
    func finish(succeeded: Bool) async

    /// Stops receiving.
    func close()
}
