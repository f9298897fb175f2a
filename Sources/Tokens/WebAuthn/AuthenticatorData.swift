/// Authenticator data (WebAuthn §6.1): the RP ID hash, the flags, the signature counter, and
/// for a registration the attested credential data; extensions are read past, not used.
struct AuthenticatorData: Sendable {
    /// SHA-256 of the RP ID the authenticator used.
    let relyingPartyIDHash: ArraySlice<UInt8>
    /// The flags byte.
    let flags: UInt8
    /// The signature counter.
    let signCount: UInt32
    /// The credential created, present when the AT flag is.
    let attestedCredential: AttestedCredentialData?

    /// User present (UP).
    var userPresent: Bool { flags & 0x01 != 0 }
    /// User verified (UV).
    var userVerified: Bool { flags & 0x04 != 0 }
    /// Backup eligible (BE).
    var backupEligible: Bool { flags & 0x08 != 0 }
    /// Backed up (BS).
    var backupState: Bool { flags & 0x10 != 0 }

    /// The longest credential ID accepted (WebAuthn §7.1 step 20).
    static let maximumCredentialIDLength = 1023

    /// Reads `bytes`, which must be exactly authenticator data: the 37-byte header, the
    /// attested credential data when AT is set (a COSE key, one CBOR map), the extensions when
    /// ED is set (one CBOR map), and nothing after them.
    init(_ bytes: [UInt8]) throws(FederateError) {
        guard bytes.count >= 37 else {
            throw FederateError(.webauthnMalformed, "authenticator data has \(bytes.count) bytes; at least 37 are required")
        }
        relyingPartyIDHash = bytes[0..<32]
        flags = bytes[32]
        signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        var position = 37
        let reader = CBORReader()
        if flags & 0x40 != 0 {
            guard bytes.count - position >= 18 else {
                throw FederateError(.webauthnMalformed, "attested credential data ends before the credential ID's length")
            }
            let aaguid = Array(bytes[position..<(position + 16)])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length <= Self.maximumCredentialIDLength else {
                throw FederateError(.webauthnCredentialIDTooLong, "the credential ID has \(length) bytes; at most 1023 are accepted")
            }
            guard bytes.count - position >= length else {
                throw FederateError(.webauthnMalformed, "attested credential data ends inside the credential ID")
            }
            let credentialID = Array(bytes[position..<(position + length)])
            position += length
            let (key, keyLength) = try reader.decodePrefix(bytes[position...])
            guard key.mapValue != nil else { throw FederateError(.webauthnInvalidPublicKey, "the credential public key is not a CBOR map") }
            attestedCredential = AttestedCredentialData(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[position..<(position + keyLength)]), publicKey: key)
            position += keyLength
        } else {
            attestedCredential = nil
        }
        if flags & 0x80 != 0 {
            let (extensions, length) = try reader.decodePrefix(bytes[position...])
            guard extensions.mapValue != nil else { throw FederateError(.webauthnMalformed, "the extensions are not a CBOR map") }
            position += length
        }
        guard position == bytes.count else {
            throw FederateError(.webauthnMalformed, "\(bytes.count - position) bytes follow the authenticator data")
        }
    }
}

/// The credential a registration created (WebAuthn §6.5.1).
struct AttestedCredentialData: Sendable {
    /// The authenticator's model (16 bytes; zeros under `none` attestation).
    let aaguid: [UInt8]
    /// The credential ID.
    let credentialID: [UInt8]
    /// The COSE key exactly as the authenticator encoded it.
    let publicKeyBytes: [UInt8]
    /// The COSE key, read.
    let publicKey: CBORValue
}
