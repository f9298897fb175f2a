/// The options of one ceremony, for the browser, and the challenge they carry, for the server.
///
/// Send ``json`` (or ``jsonText``) to the page, which passes it to
/// `PublicKeyCredential.parseCreationOptionsFromJSON` or `parseRequestOptionsFromJSON`; keep
/// ``challenge`` (sealed, or server-side) to verify the response with.
public struct WebAuthnOptions: Sendable, Hashable {
    /// What to keep until the response arrives.
    public let challenge: WebAuthnChallenge
    /// `PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`
    /// (WebAuthn Level 3), binary members in base64url.
    public let json: JSONValue

    /// ``json`` as compact text.
    public var jsonText: String { JSONSerializer.string(json) }
}
