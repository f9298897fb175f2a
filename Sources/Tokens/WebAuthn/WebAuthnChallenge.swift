public import Foundation

/// A challenge issued with a ceremony's options: what the caller keeps until the response
/// comes back (in a sealed cookie, or in server-side state), and passes back in to verify it.
///
/// Keep it where the browser cannot change it: the verification trusts its ``ceremony``,
/// ``expiresAt`` and ``userVerification``. It is single use: the first verification that
/// succeeds consumes it in the relying party's `ReplayStore`, and any later one is refused
/// with `webauthn_challenge_replayed`, also on another server sharing the store.
public struct WebAuthnChallenge: Sendable, Hashable {
    /// The random challenge (32 bytes when Federate issues it).
    public let bytes: [UInt8]
    /// The ceremony it was issued for.
    public let ceremony: WebAuthnCeremony
    /// When it was issued.
    public let issuedAt: Date
    /// When it stops being accepted.
    public let expiresAt: Date
    /// Whether the response must carry user verification, whatever the configuration says.
    public let userVerification: WebAuthnUserVerification
    /// For a registration, the user handle (`user.id`) the options named; `nil` otherwise.
    public let userHandle: [UInt8]?

    /// A challenge as the caller kept it (read back from its storage).
    public init(
        bytes: [UInt8], ceremony: WebAuthnCeremony, issuedAt: Date, expiresAt: Date,
        userVerification: WebAuthnUserVerification, userHandle: [UInt8]? = nil
    ) {
        self.bytes = bytes
        self.ceremony = ceremony
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.userVerification = userVerification
        self.userHandle = userHandle
    }

    /// The challenge as base64url, as the options and the client data carry it.
    public var base64URL: String { Base64URL.encode(bytes) }

    /// The smallest challenge accepted (WebAuthn §13.4.3 asks for at least 16 random bytes).
    static let minimumByteCount = 16
    /// The size of the challenges Federate issues.
    static let issuedByteCount = 32
}
