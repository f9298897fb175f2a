/// A verified authentication: which passkey signed, and what the account layer updates.
///
/// Store ``signCount`` with a compare-and-set against the value the ``StoredPasskey`` held,
/// so two concurrent assertions cannot both move the counter; a counter that did not increase
/// was already refused (`webauthn_counter_regressed`).
public struct VerifiedPasskeyAssertion: Sendable, Hashable {
    /// The credential ID.
    public let credentialID: [UInt8]
    /// The user handle the authenticator returned, if it did.
    public let userHandle: [UInt8]?
    /// The new signature counter (0 when the authenticator does not count).
    public let signCount: UInt32
    /// Whether the user was verified (UV): what a reauthentication before a sensitive
    /// operation should require (``WebAuthnUserVerification/required``).
    public let userVerified: Bool
    /// Whether the credential may be backed up (BE).
    public let backupEligible: Bool
    /// Whether it is backed up now (BS); it may change between assertions.
    public let backupState: Bool
}
