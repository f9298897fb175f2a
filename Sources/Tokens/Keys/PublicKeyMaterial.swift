import Crypto
import Foundation
import _CryptoExtras

/// The public key inside a ``JSONWebKey``, parsed once when the key set is loaded.
enum PublicKeyMaterial: Sendable {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// Whether this key can verify signatures of this algorithm (the `kty`/`crv` binding).
    func supports(_ algorithm: JWSAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .ps256), (.rsa, .ps384), (.rsa, .ps512): return true
        case (.p256, .es256), (.p384, .es384), (.p521, .es512): return true
        case (.ed25519, .edDSA): return true
        default: return false
        }
    }

    /// Verifies a JWS signature. The caller has checked ``supports(_:)``. Both buffers are
    /// read in place: the signing input in the token, the signature where it was decoded.
    func verify(signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.rsa(let key), _):
            return Self.verifyRSA(key, signature: signature, signingInput: signingInput, algorithm: algorithm)
        case (.p256(let key), .es256):
            guard signature.count == 64, let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA256.hash(data: signingInput))
        case (.p384(let key), .es384):
            guard signature.count == 96, let sig = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA384.hash(data: signingInput))
        case (.p521(let key), .es512):
            guard signature.count == 132, let sig = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: SHA512.hash(data: signingInput))
        case (.ed25519(let key), .edDSA):
            guard signature.count == 64 else { return false }
            return key.isValidSignature(signature, for: signingInput)
        default:
            return false
        }
    }

    private static func verifyRSA(
        _ key: _RSA.Signing.PublicKey, signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer, algorithm: JWSAlgorithm
    ) -> Bool {
        // RSA signatures are exactly the modulus length in whole bytes (RFC 8017 §8.2.2 step 1):
        // a 2052-bit modulus takes 257-byte signatures.
        guard signature.count == (key.keySizeInBits + 7) / 8 else { return false }
        let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
        switch algorithm {
        case .rs256: return key.isValidSignature(sig, for: SHA256.hash(data: signingInput), padding: .insecurePKCS1v1_5)
        case .rs384: return key.isValidSignature(sig, for: SHA384.hash(data: signingInput), padding: .insecurePKCS1v1_5)
        case .rs512: return key.isValidSignature(sig, for: SHA512.hash(data: signingInput), padding: .insecurePKCS1v1_5)
        case .ps256: return key.isValidSignature(sig, for: SHA256.hash(data: signingInput), padding: .PSS)
        case .ps384: return key.isValidSignature(sig, for: SHA384.hash(data: signingInput), padding: .PSS)
        case .ps512: return key.isValidSignature(sig, for: SHA512.hash(data: signingInput), padding: .PSS)
        default: return false
        }
    }
}
