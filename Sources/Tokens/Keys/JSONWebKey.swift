import Crypto
import _CryptoExtras

/// A public signature-verification key from a JWK (RFC 7517), parsed and checked once.
///
/// Only keys that can verify signatures exist as values of this type: RSA (≥ 2048 bits),
/// EC P-256/P-384/P-521 (point on the curve), and Ed25519. Symmetric (`oct`) keys are
/// never taken from a key set; see ``HMACSecret``.
public struct JSONWebKey: Sendable {
    /// `kid`, if present.
    public let keyID: String?
    /// `kty` as written (`RSA`, `EC`, `OKP`).
    package let keyType: String
    /// `crv` for EC and OKP keys.
    package let curve: String?
    /// The key's own `alg`, if present: then it is the only algorithm the key may verify.
    package let algorithm: JWSAlgorithm?
    /// `use`, if present.
    package let use: String?
    /// `key_ops`, if present.
    let keyOperations: [String]?

    let material: PublicKeyMaterial

    /// Parses one JWK object. Throws ``FederateError`` (``FederateError/Code/invalidKey``)
    /// for keys that are malformed, unsupported, unsafe, or not for signatures.
    public init(jwk members: [String: JSONValue]) throws(FederateError) {
        func string(_ name: String) throws(FederateError) -> String? {
            guard let value = members[name] else { return nil }
            guard case .string(let s) = value else { throw FederateError(.invalidKey, "JWK '\(name)' is not a string") }
            return s
        }
        func bytes(_ name: String) throws(FederateError) -> [UInt8] {
            guard let text = try string(name) else { throw FederateError(.invalidKey, "JWK lacks '\(name)'") }
            guard let decoded = Base64URL.decode(text) else {
                throw FederateError(.invalidKey, "JWK '\(name)' is not canonical base64url")
            }
            return decoded
        }
        guard let kty = try string("kty") else { throw FederateError(.invalidKey, "JWK lacks 'kty'") }
        self.keyType = kty
        self.keyID = try string("kid")
        self.curve = try string("crv")
        self.use = try string("use")
        if let ops = members["key_ops"] {
            guard case .array(let entries) = ops else { throw FederateError(.invalidKey, "JWK 'key_ops' is not an array") }
            var names: [String] = []
            for entry in entries {
                guard case .string(let name) = entry else { throw FederateError(.invalidKey, "JWK 'key_ops' entries must be strings") }
                names.append(name)
            }
            self.keyOperations = names
        } else {
            self.keyOperations = nil
        }
        if let use, use != "sig" {
            throw FederateError(.invalidKey, "JWK 'use' is '\(use)', not 'sig'")
        }
        if let keyOperations, !keyOperations.contains("verify") {
            throw FederateError(.invalidKey, "JWK 'key_ops' does not include 'verify'")
        }
        if let algName = try string("alg") {
            guard let alg = JWSAlgorithm(rawValue: algName), !alg.isSymmetric else {
                throw FederateError(.invalidKey, "JWK 'alg' '\(algName)' is not a supported signature algorithm")
            }
            self.algorithm = alg
        } else {
            self.algorithm = nil
        }
        if members["d"] != nil {
            throw FederateError(.invalidKey, "JWK contains private key material; a key set must hold public keys only")
        }

        switch kty {
        case "RSA":
            let (n, e) = try RSAPublicKeyChecks.validate(modulus: try bytes("n"), exponent: try bytes("e"))
            do {
                material = .rsa(try _RSA.Signing.PublicKey(n: n, e: e))
            } catch {
                throw FederateError(.invalidKey, "RSA parameters rejected by the crypto library")
            }
        case "EC":
            let x = try bytes("x"), y = try bytes("y")
            material = try Self.ecKey(curve: curve, x: x, y: y)
        case "OKP":
            guard curve == "Ed25519" else { throw FederateError(.invalidKey, "OKP curve '\(curve ?? "none")' is not supported") }
            let x = try bytes("x")
            guard x.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw FederateError(.invalidKey, "Ed25519 'x' must be 32 bytes")
            }
            material = .ed25519(key)
        default:
            throw FederateError(.invalidKey, "JWK 'kty' '\(kty)' is not supported for signatures")
        }
        if let algorithm, !material.supports(algorithm) {
            throw FederateError(.invalidKey, "JWK 'alg' \(algorithm.rawValue) does not fit its key type")
        }
    }

    private static func ecKey(curve: String?, x: [UInt8], y: [UInt8]) throws(FederateError) -> PublicKeyMaterial {
        func point(_ size: Int) throws(FederateError) -> [UInt8] {
            guard x.count == size, y.count == size else {
                throw FederateError(.invalidKey, "EC coordinates for \(curve ?? "?") must be \(size) bytes each")
            }
            return [0x04] + x + y
        }
        do {
            switch curve {
            case "P-256": return .p256(try P256.Signing.PublicKey(x963Representation: try point(32)))
            case "P-384": return .p384(try P384.Signing.PublicKey(x963Representation: try point(48)))
            case "P-521": return .p521(try P521.Signing.PublicKey(x963Representation: try point(66)))
            default: throw FederateError(.invalidKey, "EC curve '\(curve ?? "none")' is not supported")
            }
        } catch let error as FederateError {
            throw error
        } catch {
            throw FederateError(.invalidKey, "EC point is not on curve \(curve ?? "?")")
        }
    }

    /// Wraps a public key from an X.509 certificate (used for Google's x509 key maps).
    init(keyID: String, material: PublicKeyMaterial) {
        self.keyID = keyID
        self.material = material
        self.use = "sig"
        self.keyOperations = nil
        self.algorithm = nil
        switch material {
        case .rsa:
            keyType = "RSA"
            curve = nil
        case .p256:
            keyType = "EC"
            curve = "P-256"
        case .p384:
            keyType = "EC"
            curve = "P-384"
        case .p521:
            keyType = "EC"
            curve = "P-521"
        case .ed25519:
            keyType = "OKP"
            curve = "Ed25519"
        }
    }

    /// Whether this key may verify a signature made with `algorithm`: the key type and curve
    /// must fit, and the key's own `alg` (when present) must be exactly this algorithm.
    package func permits(_ algorithm: JWSAlgorithm) -> Bool {
        if let own = self.algorithm, own != algorithm { return false }
        return material.supports(algorithm)
    }

    /// Verifies a signature with this key, after checking `permits(_:)`.
    package func verify(signature: [UInt8], signingInput: [UInt8], algorithm: JWSAlgorithm) -> Bool {
        signature.withUnsafeBytes { signature in
            signingInput.withUnsafeBytes { signingInput in verify(signature: signature, signingInput: signingInput, algorithm: algorithm) }
        }
    }

    /// Verifies a signature read in place, after checking ``permits(_:)``.
    func verify(signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        permits(algorithm) && material.verify(signature: signature, signingInput: signingInput, algorithm: algorithm)
    }
}
