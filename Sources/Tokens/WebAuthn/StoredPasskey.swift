/// A passkey as the account layer stored it: what verifying one of its assertions needs.
///
/// The COSE key is read once, when the value is made: keep the value (in a cache keyed by
/// credential ID, say) to verify assertions without reading the key again.
public struct StoredPasskey: Sendable {
    /// The credential ID.
    public let credentialID: [UInt8]
    /// The COSE public key (``RegisteredPasskey/publicKey``).
    public let publicKey: [UInt8]
    /// The stored signature counter.
    public let signCount: UInt32
    /// The user handle of the account it belongs to, when stored: an assertion's `userHandle`
    /// must then equal it.
    public let userHandle: [UInt8]?
    /// The backup eligibility stored at registration, when stored: an assertion must report
    /// the same (WebAuthn §7.2 step 17).
    public let backupEligible: Bool?
    /// The key, read.
    let key: WebAuthnPublicKey

    /// The key's algorithm.
    public var algorithm: COSEAlgorithm { key.algorithm }

    /// A passkey from its stored columns; throws the codes of a registration's key checks
    /// (`webauthn_unsupported_algorithm`, `webauthn_weak_rsa_key`,
    /// `webauthn_invalid_public_key`, `cbor_*`) when `publicKey` is not a COSE key Federate
    /// accepts.
    public init(
        credentialID: [UInt8], publicKey: [UInt8], signCount: UInt32, userHandle: [UInt8]? = nil, backupEligible: Bool? = nil
    ) throws(FederateError) {
        let key = try WebAuthnPublicKey(cose: try CBORReader().decode(publicKey), algorithms: COSEAlgorithm.supported)
        self.init(
            credentialID: credentialID, publicKey: publicKey, key: key, signCount: signCount, userHandle: userHandle,
            backupEligible: backupEligible)
    }

    /// A passkey whose key was read already.
    init(credentialID: [UInt8], publicKey: [UInt8], key: WebAuthnPublicKey, signCount: UInt32, userHandle: [UInt8]?, backupEligible: Bool?)
    {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.key = key
        self.signCount = signCount
        self.userHandle = userHandle
        self.backupEligible = backupEligible
    }
}
