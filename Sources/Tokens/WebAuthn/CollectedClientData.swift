/// The client data the browser signed over (WebAuthn §5.8.1): `type`, `challenge`, `origin`,
/// and `crossOrigin`/`topOrigin` for a ceremony in a cross-origin iframe.
struct CollectedClientData: Sendable {
    /// `webauthn.create` or `webauthn.get`.
    let type: String
    /// The challenge, decoded from base64url.
    let challenge: [UInt8]
    /// The origin the ceremony ran on, as the browser serialised it.
    let origin: String
    /// Whether the ceremony ran in a cross-origin iframe.
    let crossOrigin: Bool
    /// The top-level origin of that iframe's page, when the browser sends it.
    let topOrigin: String?

    /// The largest client data read.
    static let maximumByteCount = 16 * 1024

    /// Reads `clientDataJSON` (strict JSON: no duplicate members, UTF-8, bounded).
    init(json: [UInt8]) throws(FederateError) {
        let object: [String: JSONValue]
        do {
            object = try JSONParser(limits: .init(maxBytes: Self.maximumByteCount, maxDepth: 8)).parseObject(json)
        } catch {
            throw FederateError(.webauthnMalformed, "clientDataJSON is not a JSON object", cause: error)
        }
        guard let type = object["type"]?.stringValue, let challenge = object["challenge"]?.stringValue,
            let origin = object["origin"]?.stringValue
        else { throw FederateError(.webauthnMalformed, "clientDataJSON lacks a string type, challenge or origin") }
        guard let challengeBytes = Base64URL.decode(challenge) else {
            throw FederateError(.webauthnChallengeMismatch, "the client data's challenge is not base64url")
        }
        var crossOrigin = false
        if let value = object["crossOrigin"], value != .null {
            guard let flag = value.boolValue else {
                throw FederateError(.webauthnMalformed, "clientDataJSON's crossOrigin is not a Boolean")
            }
            crossOrigin = flag
        }
        var topOrigin: String?
        if let value = object["topOrigin"], value != .null {
            guard let text = value.stringValue else {
                throw FederateError(.webauthnMalformed, "clientDataJSON's topOrigin is not a string")
            }
            topOrigin = text
        }
        self.type = type
        self.challenge = challengeBytes
        self.origin = origin
        self.crossOrigin = crossOrigin
        self.topOrigin = topOrigin
    }
}
