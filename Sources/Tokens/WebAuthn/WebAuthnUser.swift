/// The account a passkey is created for: the options' `user`.
public struct WebAuthnUser: Sendable, Hashable {
    /// The user handle: 1 to 64 opaque bytes that identify the account and carry no personal
    /// information (random bytes kept with the account, not an email address). The
    /// authenticator returns it as `userHandle` with every assertion of a discoverable credential.
    public let id: [UInt8]
    /// A name the user recognises the account by, e.g. an email address.
    public let name: String
    /// A friendly name for the account, e.g. the person's name.
    public let displayName: String

    /// Creates a user, or throws `invalid_configuration` when `id` is empty or longer than 64 bytes.
    public init(id: [UInt8], name: String, displayName: String) throws(FederateError) {
        guard (1...64).contains(id.count) else {
            throw FederateError(.invalidConfiguration, "a WebAuthn user handle has 1 to 64 bytes, not \(id.count)")
        }
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}
