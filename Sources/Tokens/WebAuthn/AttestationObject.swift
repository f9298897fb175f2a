import Crypto

/// An attestation object (WebAuthn §6.5): the format, its statement and the authenticator
/// data. Federate accepts `none` and `packed` self-attestation only: it asks for no
/// attestation, and trusts a passkey for the key it holds, not for the model it claims.
struct AttestationObject: Sendable {
    /// `none` or `packed`.
    let format: String
    /// The authenticator data, exactly as signed.
    let authenticatorDataBytes: [UInt8]
    /// The authenticator data, read.
    let authenticatorData: AuthenticatorData
    /// The statement (a CBOR map).
    let statement: CBORValue

    /// Reads the CBOR document: a map with a text `fmt`, a map `attStmt` and bytes `authData`.
    init(_ bytes: [UInt8]) throws(FederateError) {
        let document = try CBORReader().decode(bytes)
        guard let entries = document.mapValue else { throw FederateError(.webauthnMalformed, "the attestation object is not a CBOR map") }
        guard let format = document[text: "fmt"]?.textValue, let statement = document[text: "attStmt"], statement.mapValue != nil,
            let authData = document[text: "authData"]?.bytesValue
        else { throw FederateError(.webauthnMalformed, "the attestation object lacks fmt, attStmt or authData") }
        guard entries.count == 3 else {
            throw FederateError(.webauthnMalformed, "the attestation object has members beyond fmt, attStmt and authData")
        }
        self.format = format
        self.statement = statement
        self.authenticatorDataBytes = authData
        self.authenticatorData = try AuthenticatorData(authData)
    }

    /// Checks the statement for `key`, the credential's: `none` has an empty statement;
    /// `packed` self-attestation has exactly `alg` (the key's) and `sig` (by the key, over
    /// `authData || clientDataHash`). Every other format, `x5c` included, is refused.
    func verifyStatement(key: WebAuthnPublicKey, clientDataHash: SHA256.Digest) throws(FederateError) {
        let entries = statement.mapValue ?? []
        switch format {
        case "none":
            guard entries.isEmpty else { throw FederateError(.webauthnAttestationFormat, "a 'none' attestation has a non-empty statement") }
        case "packed":
            guard statement[text: "x5c"] == nil, statement[text: "ecdaaKeyId"] == nil else {
                throw FederateError(
                    .webauthnAttestationFormat, "packed attestation with a certificate (x5c) is not accepted; ask for attestation 'none'")
            }
            guard entries.count == 2, let alg = statement[text: "alg"]?.integerValue, let signature = statement[text: "sig"]?.bytesValue
            else {
                throw FederateError(.webauthnAttestationFormat, "a packed self-attestation has exactly alg and sig")
            }
            guard alg == key.algorithm.rawValue else {
                throw FederateError(
                    .webauthnAttestationFormat, "the packed statement's alg \(alg) is not the credential key's \(key.algorithm)")
            }
            guard key.isValidSignature(signature, authenticatorData: authenticatorDataBytes, clientDataHash: clientDataHash) else {
                throw FederateError(.webauthnSignature, "the packed self-attestation signature does not verify")
            }
        default:
            throw FederateError(
                .webauthnAttestationFormat, "the attestation format is not accepted (only none and packed self-attestation)")
        }
    }
}
