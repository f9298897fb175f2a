/// Reading the Level 3 JSON forms of responses (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`): the members both share, binary ones in base64url.
///
/// The text is validated once (`JSONMembers`: strict JSON, no duplicate names at any depth)
/// and its members read in place: base64url is decoded from the text's bytes, no string or
/// dictionary is built for them.
struct WebAuthnResponseJSON {
    /// The response object.
    let object: JSONMembers
    /// Its `response` member.
    let response: JSONMembers
    /// `rawId`, decoded; equal to `id`, 1 to 1,023 bytes.
    let credentialID: [UInt8]

    /// The largest response read (an attestation object with a certificate chain fits).
    static let maximumByteCount = 128 * 1024
    static let limits = JSONParser.Limits(maxBytes: maximumByteCount, maxDepth: 16)

    /// Reads `json`: an object with `id` and `rawId` (the same credential ID), `type`
    /// `public-key` and a `response` object.
    init(_ json: [UInt8]) throws(FederateError) {
        let object: JSONMembers
        do {
            object = try JSONMembers(validating: json, limits: Self.limits)
        } catch {
            throw FederateError(.webauthnMalformed, "the WebAuthn response is not a JSON object within 128 KiB", cause: error)
        }
        guard let type = object.member(named: "type"), type.kind == .string,
            object.withStringBytes(type, { $0.elementsEqual("public-key".utf8) })
        else { throw FederateError(.webauthnMalformed, "the credential's type is not 'public-key'") }
        guard let member = object.member(named: "response"), member.kind == .object else {
            throw FederateError(.webauthnMalformed, "the WebAuthn response lacks a 'response' object")
        }
        let start = Int(member.valueStart)
        do {
            response = try JSONMembers(validating: Array(json[start..<(start + Int(member.valueCount))]), limits: Self.limits)
        } catch {
            throw FederateError(.webauthnMalformed, "the WebAuthn response's 'response' is not a JSON object", cause: error)
        }
        self.object = object
        let id = try Self.bytes(object, "id")
        let rawID = try Self.bytes(object, "rawId")
        guard !rawID.isEmpty else { throw FederateError(.webauthnMalformed, "the credential ID is empty") }
        guard rawID.count <= AuthenticatorData.maximumCredentialIDLength else {
            throw FederateError(.webauthnCredentialIDTooLong, "the credential ID has \(rawID.count) bytes; at most 1023 are accepted")
        }
        guard id == rawID else { throw FederateError(.webauthnCredentialIDMismatch, "the credential's id and rawId differ") }
        credentialID = rawID
    }

    /// The base64url string member `name` of `members`, decoded.
    static func bytes(_ members: JSONMembers, _ name: String) throws(FederateError) -> [UInt8] {
        guard let member = members.member(named: name), member.kind == .string else {
            throw FederateError(.webauthnMalformed, "'\(name)' is missing or not a string")
        }
        guard let bytes = members.withStringBytes(member, { Base64URL.decode(bytes: $0) }) else {
            throw FederateError(.webauthnMalformed, "'\(name)' is not base64url")
        }
        return bytes
    }

    /// The base64url member `name` of the `response` object, decoded.
    func responseBytes(_ name: String) throws(FederateError) -> [UInt8] {
        try Self.bytes(response, name)
    }

    /// Whether the `response` object has the member `name` with a value other than `null`.
    func responseHas(_ name: String) -> Bool {
        guard let member = response.member(named: name) else { return false }
        return member.kind != .null
    }
}
