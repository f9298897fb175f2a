/// A passkey a verified registration created: what the account layer stores with the user.
///
/// Store ``credentialID`` (unique across all users), ``publicKey``, ``signCount``,
/// ``backupEligible`` and the user handle; read them back into a ``StoredPasskey`` to verify
/// the passkey's assertions.
public struct RegisteredPasskey: Sendable {
    /// The credential ID (1 to 1,023 bytes).
    public let credentialID: [UInt8]
    /// The credential public key exactly as the authenticator encoded it (a COSE key);
    /// ``StoredPasskey/init(credentialID:publicKey:signCount:userHandle:backupEligible:)`` reads it back.
    public let publicKey: [UInt8]
    /// The key's algorithm.
    public let algorithm: COSEAlgorithm
    /// The signature counter at registration (0 for most passkeys, which do not count).
    public let signCount: UInt32
    /// Whether the credential may be backed up (synced) (BE); it never changes for a credential.
    public let backupEligible: Bool
    /// Whether it is backed up now (BS).
    public let backupState: Bool
    /// Whether the user was verified (UV).
    public let userVerified: Bool
    /// The transports the browser reported.
    public let transports: [String]
    /// The authenticator's model identifier (16 bytes; zeros when it attests nothing).
    public let aaguid: [UInt8]
    /// `none` or `packed`.
    public let attestationFormat: String
    /// The user handle the registration options named (``WebAuthnChallenge/userHandle``).
    public let userHandle: [UInt8]?
    /// The key, read.
    let key: WebAuthnPublicKey

    /// The passkey as ``WebAuthnRelyingParty/verifyAuthentication(_:challenge:passkey:)`` takes it.
    public var storedPasskey: StoredPasskey {
        StoredPasskey(
            credentialID: credentialID, publicKey: publicKey, key: key, signCount: signCount, userHandle: userHandle,
            backupEligible: backupEligible)
    }
}
