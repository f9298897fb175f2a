package import Foundation

/// A session-signing key as an ``AccountStore`` keeps it: an ES256 (P-256) private key
/// with its `kid`.
///
/// Secret: the `description` is redacted. Stores keep it as given; protect the database
/// accordingly (anyone who can read it can mint sessions).
package struct SessionKeyRecord: Sendable, Hashable, CustomStringConvertible {
    /// The `kid`.
    package let keyID: String
    /// The raw P-256 private scalar (32 bytes).
    package let privateKey: [UInt8]
    /// When the key was created; the newest key signs.
    package let createdAt: Date

    /// Creates a record.
    package init(keyID: String, privateKey: [UInt8], createdAt: Date) {
        self.keyID = keyID
        self.privateKey = privateKey
        self.createdAt = createdAt
    }

    /// Redacted.
    package var description: String { "SessionKeyRecord(kid: \(keyID), created: \(createdAt), redacted)" }
}
