/// Whether a ceremony requires the authenticator to verify the user (a PIN, a biometric),
/// beyond their presence: the options' `userVerification`.
public enum WebAuthnUserVerification: String, Sendable, Hashable, CaseIterable {
    /// The user-verified (UV) flag must be set, or the ceremony is refused with
    /// `webauthn_user_verification`. Use it for reauthentication before sensitive operations.
    case required
    /// The authenticator verifies the user when it can; a response without UV is accepted
    /// (and reported as ``VerifiedPasskeyAssertion/userVerified`` `false`).
    case preferred
}
