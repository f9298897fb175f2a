extension WebAuthnRelyingParty {
    /// Verifies an authentication with the passkey the caller looked up by
    /// ``WebAuthnAuthenticationResponse/credentialID`` (WebAuthn §7.2): the credential and
    /// user handle are the passkey's, the client data (type, challenge, origin, cross-origin),
    /// the authenticator data (RP ID hash, UP, UV when required, BS only with BE, the same BE
    /// as stored), the signature over `authenticatorData || SHA-256(clientDataJSON)` with the
    /// stored key, and the counter: when it or the stored one is non-zero it must have
    /// increased, or `webauthn_counter_regressed` (the authenticator may be cloned). Then
    /// consumes the challenge.
    ///
    /// The caller stores ``VerifiedPasskeyAssertion/signCount`` with a compare-and-set on the
    /// stored value. Throws a `webauthn_*` or `cbor_*` code.
    public func verifyAuthentication(
        _ response: WebAuthnAuthenticationResponse, challenge: WebAuthnChallenge, passkey: StoredPasskey
    ) async throws(FederateError) -> VerifiedPasskeyAssertion {
        guard ConstantTime.equals(response.credentialID, passkey.credentialID) else {
            throw FederateError(.webauthnCredentialIDMismatch, "the response is for another credential than the stored passkey")
        }
        if let returned = response.userHandle, let owner = passkey.userHandle {
            guard ConstantTime.equals(returned, owner) else {
                throw FederateError(.webauthnUserHandleMismatch, "the user handle is not the passkey owner's")
            }
        }
        guard configuration.algorithms.contains(passkey.algorithm) else {
            throw FederateError(.webauthnUnsupportedAlgorithm, "\(passkey.algorithm) is no longer an accepted algorithm")
        }
        let clientDataHash = try checkClientData(response.clientDataJSON, challenge: challenge, ceremony: .authentication)
        let data = try AuthenticatorData(response.authenticatorData)
        guard data.attestedCredential == nil else {
            throw FederateError(.webauthnMalformed, "an assertion's authenticator data carries attested credential data")
        }
        try checkFlags(data, challenge: challenge)
        if let eligible = passkey.backupEligible, eligible != data.backupEligible {
            throw FederateError(.webauthnBackupState, "the credential's backup eligibility (BE) changed since its registration")
        }
        guard
            passkey.key.isValidSignature(response.signature, authenticatorData: response.authenticatorData, clientDataHash: clientDataHash)
        else { throw FederateError(.webauthnSignature, "the assertion signature does not verify with the stored key") }
        if data.signCount != 0 || passkey.signCount != 0, data.signCount <= passkey.signCount {
            throw FederateError(
                .webauthnCounterRegressed,
                "the signature counter went from \(passkey.signCount) to \(data.signCount): the authenticator may be cloned")
        }
        try await consume(challenge)
        return VerifiedPasskeyAssertion(
            credentialID: passkey.credentialID, userHandle: response.userHandle, signCount: data.signCount,
            userVerified: data.userVerified, backupEligible: data.backupEligible, backupState: data.backupState)
    }
}
