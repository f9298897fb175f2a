public import Foundation

/// A passkey linked to an account: a WebAuthn public-key credential, registered once and then
/// a way to sign in of its own, beside the account's provider identities (Docs/Passkeys.md).
///
/// An account has any number of passkeys; a credential ID belongs to at most one account
/// (the store's primary key decides, also across server instances). What verifying an
/// assertion needs is here: the credential's public key as registered (a COSE_Key), its
/// algorithm and the last signature counter seen.
public struct Passkey: Sendable, Hashable {
    /// The credential ID the authenticator chose (1 to 1,023 bytes), compared byte for byte.
    public let credentialID: [UInt8]
    /// The account the passkey signs in to.
    public let uid: String
    /// The credential's public key as the authenticator registered it: a COSE_Key (RFC 9052).
    public let publicKey: [UInt8]
    /// The key's COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
    public let algorithm: Int
    /// The last signature counter the authenticator reported; 0 when it keeps none.
    public let signCount: UInt32
    /// Whether the authenticator may back the credential up (the BE flag, fixed at registration).
    public let backupEligible: Bool
    /// Whether the credential was backed up when last used (the BS flag).
    public let backupState: Bool
    /// The transports the browser reported at registration (`internal`, `hybrid`, `usb`, …),
    /// offered back as hints when the user signs in.
    public let transports: [String]
    /// A name the user gave the passkey, if any.
    public let name: String?
    /// When the passkey was registered.
    public let createdAt: Date
    /// When the passkey last signed the user in, if it has.
    public let lastUsedAt: Date?

    /// A passkey as stored.
    package init(
        credentialID: [UInt8], uid: String, publicKey: [UInt8], algorithm: Int, signCount: UInt32, backupEligible: Bool,
        backupState: Bool, transports: [String], name: String?, createdAt: Date, lastUsedAt: Date?
    ) {
        self.credentialID = credentialID
        self.uid = uid
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.transports = transports
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The passkey after a sign-in at `date` that reported `signCount` and `backupState`.
    func used(signCount: UInt32, backupState: Bool, at date: Date) -> Passkey {
        Passkey(
            credentialID: credentialID, uid: uid, publicKey: publicKey, algorithm: algorithm, signCount: signCount,
            backupEligible: backupEligible, backupState: backupState, transports: transports, name: name, createdAt: createdAt,
            lastUsedAt: date)
    }

    /// The passkey of the account `uid` merged into.
    func moved(to uid: String) -> Passkey {
        Passkey(
            credentialID: credentialID, uid: uid, publicKey: publicKey, algorithm: algorithm, signCount: signCount,
            backupEligible: backupEligible, backupState: backupState, transports: transports, name: name, createdAt: createdAt,
            lastUsedAt: lastUsedAt)
    }

    /// The order passkeys are listed in: oldest first, then by credential ID's bytes.
    static func isOlder(_ first: Passkey, _ second: Passkey) -> Bool {
        guard first.createdAt == second.createdAt else { return first.createdAt < second.createdAt }
        return first.credentialID.lexicographicallyPrecedes(second.credentialID)
    }

    /// The provider ID passkey sign-ins are counted and traced under.
    static let providerID = "passkey"

    /// The WebAuthn user handle of account `uid`: its uid's UTF-8 bytes (random, no personal data).
    static func userHandle(uid: String) -> [UInt8] { Array(uid.utf8) }

    /// The transports worth keeping as hints: at most 8, each 1 to 32 of `a-z`, `0-9` and `-`.
    static func hints(_ transports: [String]) -> [String] {
        Array(
            transports.filter { transport in
                (1...32).contains(transport.utf8.count)
                    && transport.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
            }
            .prefix(8))
    }

    /// The longest credential ID WebAuthn allows (Level 3, §5.1: at most 1,023 bytes).
    static let maximumCredentialIDLength = 1023
}
