/// A registration's response as the browser's `PublicKeyCredential.toJSON()` gives it
/// (`RegistrationResponseJSON`, WebAuthn Level 3), read but not verified yet.
///
/// Verify it with ``WebAuthnRelyingParty/verifyRegistration(_:challenge:)``.
public struct WebAuthnRegistrationResponse: Sendable {
    /// The new credential's ID (`rawId`, equal to `id`).
    public let credentialID: [UInt8]
    /// The transports the browser reports (`response.transports`), printable ASCII, at most 16.
    public let transports: [String]
    /// `clientDataJSON`, decoded from base64url.
    let clientDataJSON: [UInt8]
    /// `attestationObject`, decoded from base64url.
    let attestationObject: [UInt8]

    /// Reads the JSON text, or throws `webauthn_malformed` (missing or mistyped members, an empty credential ID,
    /// base64url that is not canonical, more than 128 KiB), `webauthn_credential_id_mismatch`
    /// (`id` and `rawId` differ) or `webauthn_credential_id_too_long`.
    public init(json: [UInt8]) throws(FederateError) {
        let parsed = try WebAuthnResponseJSON(json)
        credentialID = parsed.credentialID
        clientDataJSON = try parsed.responseBytes("clientDataJSON")
        attestationObject = try parsed.responseBytes("attestationObject")
        var transports: [String] = []
        if parsed.responseHas("transports"), let list = parsed.response["transports"] {
            guard let values = list.arrayValue, values.count <= 16 else {
                throw FederateError(.webauthnMalformed, "'transports' is not an array of at most 16 strings")
            }
            for value in values {
                guard let text = value.stringValue, (1...32).contains(text.utf8.count),
                    text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
                else { throw FederateError(.webauthnMalformed, "a transport is not a short printable ASCII string") }
                transports.append(text)
            }
        }
        self.transports = transports
    }
}
