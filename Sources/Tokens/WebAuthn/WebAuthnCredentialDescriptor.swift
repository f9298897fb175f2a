/// A credential the options name: in `excludeCredentials` (the user's passkeys, so an
/// authenticator holding one does not create another) or `allowCredentials`.
public struct WebAuthnCredentialDescriptor: Sendable, Hashable {
    /// The credential ID.
    public let id: [UInt8]
    /// The transports the credential was registered with (`internal`, `hybrid`, `usb`, ...).
    public let transports: [String]

    /// Creates a descriptor.
    public init(id: [UInt8], transports: [String] = []) {
        self.id = id
        self.transports = transports
    }

    /// The `PublicKeyCredentialDescriptorJSON` form.
    var json: JSONValue {
        var members: [String: JSONValue] = ["type": "public-key", "id": .string(Base64URL.encode(id))]
        if !transports.isEmpty { members["transports"] = .array(transports.map(JSONValue.string)) }
        return .object(members)
    }
}
