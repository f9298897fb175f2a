// MARK: - WebAuthn relying party

extension FederateError.Code {
    /// A WebAuthn response is not what the Level 3 JSON forms describe: a member missing or of
    /// the wrong type, base64url that is not canonical, a `type` other than `public-key`,
    /// client data or authenticator data that cannot be read, or input beyond the size limits.
    public static let webauthnMalformed: Self = "webauthn_malformed"
    /// The client data's `type` is not the ceremony's (`webauthn.create` for a registration,
    /// `webauthn.get` for an authentication), or the challenge was issued for the other ceremony.
    public static let webauthnCeremonyMismatch: Self = "webauthn_ceremony_mismatch"
    /// The client data's `challenge` is not the one issued for this ceremony (compared in
    /// constant time, byte for byte).
    public static let webauthnChallengeMismatch: Self = "webauthn_challenge_mismatch"
    /// The challenge's lifetime is over: issue new options.
    public static let webauthnChallengeExpired: Self = "webauthn_challenge_expired"
    /// The challenge was already used by a verified ceremony (on this server or another one
    /// sharing the replay store).
    public static let webauthnChallengeReplayed: Self = "webauthn_challenge_replayed"
    /// The client data's `origin` is not exactly one of the configured origins.
    public static let webauthnOriginMismatch: Self = "webauthn_origin_mismatch"
    /// The ceremony ran in a cross-origin iframe (`crossOrigin` true or a `topOrigin`) and the
    /// configuration does not allow that top-level origin.
    public static let webauthnCrossOrigin: Self = "webauthn_cross_origin"
    /// The authenticator data's RP ID hash is not SHA-256 of the configured RP ID.
    public static let webauthnRPIDMismatch: Self = "webauthn_rp_id_mismatch"
    /// The authenticator data's user-present (UP) flag is not set.
    public static let webauthnUserPresence: Self = "webauthn_user_presence"
    /// User verification was required (by the configuration or the challenge) and the
    /// authenticator data's user-verified (UV) flag is not set.
    public static let webauthnUserVerification: Self = "webauthn_user_verification"
    /// The backup-state (BS) flag is set without the backup-eligible (BE) flag, or the
    /// backup eligibility of a credential changed since it was registered.
    public static let webauthnBackupState: Self = "webauthn_backup_state"
    /// The credential's public key uses a COSE algorithm outside the configured ones
    /// (ES256 -7, EdDSA -8, RS256 -257 by default), or its key type or curve does not fit the algorithm.
    public static let webauthnUnsupportedAlgorithm: Self = "webauthn_unsupported_algorithm"
    /// The credential's public key is an RSA key below 2048 bits.
    public static let webauthnWeakRSAKey: Self = "webauthn_weak_rsa_key"
    /// The credential's COSE public key is malformed or invalid: a missing parameter, a
    /// coordinate of the wrong length, a point not on the curve, RSA parameters refused.
    public static let webauthnInvalidPublicKey: Self = "webauthn_invalid_public_key"
    /// The credential ID is longer than 1,023 bytes.
    public static let webauthnCredentialIDTooLong: Self = "webauthn_credential_id_too_long"
    /// The credential ID differs between `id`, `rawId`, the authenticator data and the stored passkey.
    public static let webauthnCredentialIDMismatch: Self = "webauthn_credential_id_mismatch"
    /// The response's `userHandle` is not the user handle of the stored passkey.
    public static let webauthnUserHandleMismatch: Self = "webauthn_user_handle_mismatch"
    /// The attestation format is not `none` or `packed` self-attestation, or its statement does
    /// not fit the format (`none` with a non-empty statement; `packed` with `x5c` or an `alg`
    /// that is not the credential key's).
    public static let webauthnAttestationFormat: Self = "webauthn_attestation_format"
    /// A signature (an assertion's, or a packed self-attestation's) does not verify with the
    /// credential's public key.
    public static let webauthnSignature: Self = "webauthn_signature"
    /// The authenticator's signature counter did not increase while it or the stored one is
    /// non-zero (WebAuthn §7.2 step 22): the authenticator may have been cloned.
    public static let webauthnCounterRegressed: Self = "webauthn_counter_regressed"
}
