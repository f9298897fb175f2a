extension WebAuthnRelyingParty {
    /// Verifies a registration against the challenge its options carried (WebAuthn §7.1): the
    /// client data (type, challenge, origin, cross-origin), the attestation object (`none`, or
    /// `packed` self-attestation by the credential key), the authenticator data (RP ID hash,
    /// UP, UV when required, BS only with BE, the credential ID ≤ 1,023 bytes and equal to
    /// `rawId`), and the COSE key (an accepted algorithm, its key type and curve, a point on
    /// the curve, RSA of at least 2048 bits); then consumes the challenge.
    ///
    /// The caller still checks that no account holds ``RegisteredPasskey/credentialID`` before
    /// storing it. Throws a `webauthn_*` or `cbor_*` code.
    public func verifyRegistration(
        _ response: WebAuthnRegistrationResponse, challenge: WebAuthnChallenge
    ) async throws(FederateError) -> RegisteredPasskey {
        let clientDataHash = try checkClientData(response.clientDataJSON, challenge: challenge, ceremony: .registration)
        let attestation = try AttestationObject(response.attestationObject)
        let data = attestation.authenticatorData
        try checkFlags(data, challenge: challenge)
        guard let credential = data.attestedCredential else {
            throw FederateError(.webauthnMalformed, "the authenticator data has no attested credential data (AT is not set)")
        }
        guard credential.credentialID == response.credentialID else {
            throw FederateError(.webauthnCredentialIDMismatch, "the authenticator data's credential ID is not the response's")
        }
        let key = try WebAuthnPublicKey(cose: credential.publicKey, algorithms: configuration.algorithms)
        try attestation.verifyStatement(key: key, clientDataHash: clientDataHash)
        try await consume(challenge)
        return RegisteredPasskey(
            credentialID: credential.credentialID, publicKey: credential.publicKeyBytes, algorithm: key.algorithm,
            signCount: data.signCount, backupEligible: data.backupEligible, backupState: data.backupState,
            userVerified: data.userVerified, transports: response.transports, aaguid: credential.aaguid,
            attestationFormat: attestation.format, userHandle: challenge.userHandle, key: key)
    }
}
