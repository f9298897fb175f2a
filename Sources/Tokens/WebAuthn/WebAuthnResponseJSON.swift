/// Reading the Level 3 JSON forms of responses (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`): the members both share, binary ones in base64url.
struct WebAuthnResponseJSON {
    /// The response object.
    let object: [String: JSONValue]
    /// Its `response` member.
    let response: [String: JSONValue]
    /// `rawId`, decoded; equal to `id`, at most 1,023 bytes.
    let credentialID: [UInt8]

    /// The largest response read (an attestation object with a certificate chain fits).
    static let maximumByteCount = 128 * 1024

    /// Reads `json`: an object with `id` and `rawId` (the same credential ID), `type`
    /// `public-key` and a `response` object.
    init(_ json: [UInt8]) throws(FederateError) {
        do {
            object = try JSONParser(limits: .init(maxBytes: Self.maximumByteCount, maxDepth: 16)).parseObject(json)
        } catch {
            throw FederateError(.webauthnMalformed, "the WebAuthn response is not a JSON object within 128 KiB", cause: error)
        }
        guard object["type"]?.stringValue?.exactlyEquals("public-key") == true else {
            throw FederateError(.webauthnMalformed, "the credential's type is not 'public-key'")
        }
        guard let response = object["response"]?.objectValue else {
            throw FederateError(.webauthnMalformed, "the WebAuthn response lacks a 'response' object")
        }
        self.response = response
        let id = try Self.bytes(object, "id")
        let rawID = try Self.bytes(object, "rawId")
        guard rawID.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw FederateError(.webauthnCredentialIDTooLong, "the credential ID has \(rawID.count) bytes; at most 1023 are accepted")
        }
        guard id == rawID else { throw FederateError(.webauthnCredentialIDMismatch, "the credential's id and rawId differ") }
        credentialID = rawID
    }

    /// The base64url member `name` of `object`, decoded.
    static func bytes(_ object: [String: JSONValue], _ name: String) throws(FederateError) -> [UInt8] {
        guard let text = object[name]?.stringValue else { throw FederateError(.webauthnMalformed, "'\(name)' is missing or not a string") }
        guard let bytes = Base64URL.decode(text) else { throw FederateError(.webauthnMalformed, "'\(name)' is not base64url") }
        return bytes
    }

    /// The base64url member `name` of the `response` object, decoded.
    func responseBytes(_ name: String) throws(FederateError) -> [UInt8] {
        try Self.bytes(response, name)
    }
}
