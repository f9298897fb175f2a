import Crypto
import _CryptoExtras

/// A credential public key read from its COSE form (RFC 9052 §7, RFC 9053), bound to its algorithm.
enum WebAuthnPublicKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case edDSA(Curve25519.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The algorithm the key signs with.
    var algorithm: COSEAlgorithm {
        switch self {
        case .es256: .es256
        case .edDSA: .edDSA
        case .rs256: .rs256
        }
    }

    /// Reads a COSE key whose `alg` (label 3) is one of `algorithms` and whose `kty` and
    /// `crv` fit it: EC2/P-256 for ES256, OKP/Ed25519 for EdDSA, RSA for RS256.
    init(cose: CBORValue, algorithms: [COSEAlgorithm]) throws(FederateError) {
        guard cose.mapValue != nil else { throw FederateError(.webauthnInvalidPublicKey, "the COSE key is not a map") }
        guard let kty = cose[label: 1]?.integerValue, let alg = cose[label: 3]?.integerValue else {
            throw FederateError(.webauthnInvalidPublicKey, "the COSE key lacks an integer kty (1) or alg (3)")
        }
        let algorithm = COSEAlgorithm(rawValue: alg)
        guard algorithms.contains(algorithm) else {
            throw FederateError(.webauthnUnsupportedAlgorithm, "\(algorithm) is not an accepted algorithm")
        }
        switch algorithm {
        case .es256:
            guard kty == 2, cose[label: -1]?.integerValue == 1 else {
                throw FederateError(.webauthnUnsupportedAlgorithm, "an ES256 key must be EC2 (2) on P-256 (1)")
            }
            guard let x = cose[label: -2]?.bytesValue, let y = cose[label: -3]?.bytesValue, x.count == 32, y.count == 32 else {
                throw FederateError(.webauthnInvalidPublicKey, "a P-256 key needs 32-byte x and y coordinates")
            }
            do {
                self = .es256(try P256.Signing.PublicKey(rawRepresentation: x + y))
            } catch {
                throw FederateError(.webauthnInvalidPublicKey, "the P-256 point is not on the curve")
            }
        case .edDSA:
            guard kty == 1, cose[label: -1]?.integerValue == 6 else {
                throw FederateError(.webauthnUnsupportedAlgorithm, "an EdDSA key must be OKP (1) on Ed25519 (6)")
            }
            guard let x = cose[label: -2]?.bytesValue, x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { throw FederateError(.webauthnInvalidPublicKey, "an Ed25519 key needs a 32-byte x") }
            self = .edDSA(key)
        default:
            guard kty == 3 else { throw FederateError(.webauthnUnsupportedAlgorithm, "an RS256 key must be RSA (3)") }
            guard let n = cose[label: -1]?.bytesValue, let e = cose[label: -2]?.bytesValue else {
                throw FederateError(.webauthnInvalidPublicKey, "an RSA key needs n (-1) and e (-2)")
            }
            let modulus = n.drop(while: { $0 == 0 })
            let bits = modulus.first.map { modulus.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard bits >= RSAPublicKeyChecks.minimumModulusBits else {
                throw FederateError(.webauthnWeakRSAKey, "the RSA key has \(bits) bits; at least 2048 are required")
            }
            do {
                let (checkedN, checkedE) = try RSAPublicKeyChecks.validate(modulus: n, exponent: e)
                self = .rs256(try _RSA.Signing.PublicKey(n: checkedN, e: checkedE))
            } catch {
                throw FederateError(.webauthnInvalidPublicKey, "the RSA key is refused", cause: error)
            }
        }
    }

    /// Whether `signature` (DER for ES256, raw for EdDSA, PKCS#1 v1.5 for RS256) signs
    /// `authenticatorData || clientDataHash` (WebAuthn §6.3.3).
    func isValidSignature(_ signature: [UInt8], authenticatorData: [UInt8], clientDataHash: SHA256.Digest) -> Bool {
        switch self {
        case .es256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            var hasher = SHA256()
            hasher.update(data: authenticatorData)
            clientDataHash.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            return key.isValidSignature(parsed, for: hasher.finalize())
        case .edDSA(let key):
            guard signature.count == 64 else { return false }
            var message = authenticatorData
            message.append(contentsOf: clientDataHash)
            return key.isValidSignature(signature, for: message)
        case .rs256(let key):
            guard signature.count == (key.keySizeInBits + 7) / 8 else { return false }
            var hasher = SHA256()
            hasher.update(data: authenticatorData)
            clientDataHash.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: hasher.finalize(), padding: .insecurePKCS1v1_5)
        }
    }
}
