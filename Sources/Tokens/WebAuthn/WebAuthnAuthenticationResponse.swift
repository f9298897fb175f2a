/// An authentication's response as the browser's `PublicKeyCredential.toJSON()` gives it
/// (`AuthenticationResponseJSON`, WebAuthn Level 3), read but not verified yet.
///
/// Look the passkey up by ``credentialID`` (and, for a discoverable credential, check
/// ``userHandle`` names its owner), then verify with
/// ``WebAuthnRelyingParty/verifyAuthentication(_:challenge:passkey:)``.
public struct WebAuthnAuthenticationResponse: Sendable {
    /// The credential's ID (`rawId`, equal to `id`).
    public let credentialID: [UInt8]
    /// The user handle the authenticator returned (`response.userHandle`); `nil` when absent,
    /// `null` or empty.
    public let userHandle: [UInt8]?
    /// `clientDataJSON`, decoded.
    let clientDataJSON: [UInt8]
    /// `authenticatorData`, decoded.
    let authenticatorData: [UInt8]
    /// `signature`, decoded.
    let signature: [UInt8]

    /// Reads the JSON text, or throws `webauthn_malformed` (missing or mistyped members, an empty credential ID,
    /// base64url that is not canonical, more than 128 KiB), `webauthn_credential_id_mismatch`
    /// (`id` and `rawId` differ) or `webauthn_credential_id_too_long`.
    public init(json: [UInt8]) throws(FederateError) {
        let parsed = try WebAuthnResponseJSON(json)
        credentialID = parsed.credentialID
        clientDataJSON = try parsed.responseBytes("clientDataJSON")
        authenticatorData = try parsed.responseBytes("authenticatorData")
        signature = try parsed.responseBytes("signature")
        if parsed.responseHas("userHandle") {
            let bytes = try parsed.responseBytes("userHandle")
            guard bytes.count <= 64 else { throw FederateError(.webauthnMalformed, "the user handle has more than 64 bytes") }
            userHandle = bytes.isEmpty ? nil : bytes
        } else {
            userHandle = nil
        }
    }
}
