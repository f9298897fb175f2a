import Crypto
package import _CryptoExtras

/// A private key (or HMAC secret) that signs compact JWS tokens.
///
/// Federate signs its own session tokens, `private_key_jwt` client assertions and Apple
/// client secrets with it; the dev provider signs ID tokens with it; tests sign with it.
public struct JWSSigningKey: Sendable, CustomStringConvertible {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case hmac(HMACSecret)
    }

    let material: Material
    /// The `kid` written into headers and the public JWK.
    public let keyID: String?

    /// An RSA key.
    package init(rsa key: _RSA.Signing.PrivateKey, keyID: String?) {
        material = .rsa(key)
        self.keyID = keyID
    }
    /// A P-256 key (ES256).
    package init(p256 key: P256.Signing.PrivateKey, keyID: String?) {
        material = .p256(key)
        self.keyID = keyID
    }
    /// A P-384 key (ES384).
    package init(p384 key: P384.Signing.PrivateKey, keyID: String?) {
        material = .p384(key)
        self.keyID = keyID
    }
    /// A P-521 key (ES512).
    package init(p521 key: P521.Signing.PrivateKey, keyID: String?) {
        material = .p521(key)
        self.keyID = keyID
    }
    /// An Ed25519 key (EdDSA).
    package init(ed25519 key: Curve25519.Signing.PrivateKey, keyID: String?) {
        material = .ed25519(key)
        self.keyID = keyID
    }
    /// An HMAC secret (HS256/384/512).
    package init(hmac secret: HMACSecret, keyID: String? = nil) {
        material = .hmac(secret)
        self.keyID = keyID
    }

    /// Generates a fresh RSA key of `bits` (≥ 2048).
    /// `invalid_configuration` when the system refuses the size.
    public static func generateRSA(bits: Int = 2048, keyID: String?) throws(FederateError) -> JWSSigningKey {
        do {
            return JWSSigningKey(rsa: try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)), keyID: keyID)
        } catch {
            throw FederateError(.invalidConfiguration, "cannot generate a \(bits)-bit RSA key", cause: error)
        }
    }

    /// Redacted.
    public var description: String { "JWSSigningKey(kid: \(keyID ?? "-"), redacted)" }

    /// Whether this key can sign with `algorithm`.
    package func supports(_ algorithm: JWSAlgorithm) -> Bool {
        switch (material, algorithm) {
        case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .ps256), (.rsa, .ps384), (.rsa, .ps512): return true
        case (.p256, .es256), (.p384, .es384), (.p521, .es512), (.ed25519, .edDSA): return true
        case (.hmac, let alg): return alg.isSymmetric
        default: return false
        }
    }

    /// The public half as a JWK object (`nil` for HMAC secrets).
    public func publicJWK(algorithm: JWSAlgorithm? = nil) -> [String: JSONValue]? {
        var jwk: [String: JSONValue]
        switch material {
        case .rsa(let key):
            guard let primitives = try? key.publicKey.getKeyPrimitives() else { return nil }
            jwk = [
                "kty": "RSA", "n": .string(Base64URL.encode(Array(primitives.modulus))),
                "e": .string(Base64URL.encode(Array(primitives.publicExponent))),
            ]
        case .p256(let key): jwk = Self.ecJWK(curve: "P-256", x963: Array(key.publicKey.x963Representation))
        case .p384(let key): jwk = Self.ecJWK(curve: "P-384", x963: Array(key.publicKey.x963Representation))
        case .p521(let key): jwk = Self.ecJWK(curve: "P-521", x963: Array(key.publicKey.x963Representation))
        case .ed25519(let key):
            jwk = ["kty": "OKP", "crv": "Ed25519", "x": .string(Base64URL.encode(Array(key.publicKey.rawRepresentation)))]
        case .hmac: return nil
        }
        jwk["use"] = "sig"
        if let keyID { jwk["kid"] = .string(keyID) }
        if let algorithm { jwk["alg"] = .string(algorithm.rawValue) }
        return jwk
    }

    private static func ecJWK(curve: String, x963: [UInt8]) -> [String: JSONValue] {
        let size = (x963.count - 1) / 2
        return [
            "kty": "EC", "crv": .string(curve),
            "x": .string(Base64URL.encode(x963[1...size])), "y": .string(Base64URL.encode(x963[(size + 1)...])),
        ]
    }

    /// Signs a payload as a compact JWS. `header` adds members; `alg` and `kid` are set here.
    /// `invalid_configuration` when the key cannot sign `algorithm`, `signing_failed` when the
    /// cryptography library fails.
    package func sign(payload: [UInt8], algorithm: JWSAlgorithm, header: [String: JSONValue] = [:]) throws(FederateError) -> String {
        guard supports(algorithm) else {
            throw FederateError(.invalidConfiguration, "this key cannot sign \(algorithm.rawValue)")
        }
        var members = header
        members["alg"] = .string(algorithm.rawValue)
        if let keyID, members["kid"] == nil { members["kid"] = .string(keyID) }
        let signingInput = Base64URL.encode(JSONSerializer.bytes(.object(members))) + "." + Base64URL.encode(payload)
        let signature = try rawSignature(Array(signingInput.utf8), algorithm: algorithm)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The same key material under another `kid` (or none).
    func withKeyID(_ keyID: String?) -> JWSSigningKey {
        JWSSigningKey(material: material, keyID: keyID, relabelled: ())
    }

    private init(material: Material, keyID: String?, relabelled: Void) {
        self.material = material
        self.keyID = keyID
    }

    /// Signs a JSON claims set as a JWT.
    public func sign(
        claims: [String: JSONValue], algorithm: JWSAlgorithm, header: [String: JSONValue] = ["typ": "JWT"]
    ) throws(FederateError) -> String {
        try sign(payload: JSONSerializer.bytes(.object(claims)), algorithm: algorithm, header: header)
    }

    private func rawSignature(_ input: [UInt8], algorithm: JWSAlgorithm) throws(FederateError) -> [UInt8] {
        do {
            return try rawSignatureFromLibrary(input, algorithm: algorithm)
        } catch {
            throw FederateError(.signingFailed, "signing with \(algorithm.rawValue) failed", cause: error)
        }
    }

    private func rawSignatureFromLibrary(_ input: [UInt8], algorithm: JWSAlgorithm) throws -> [UInt8] {
        switch material {
        case .rsa(let key):
            let padding: _RSA.Signing.Padding = [.ps256, .ps384, .ps512].contains(algorithm) ? .PSS : .insecurePKCS1v1_5
            switch algorithm.hash {
            case .sha256: return Array(try key.signature(for: SHA256.hash(data: input), padding: padding).rawRepresentation)
            case .sha384: return Array(try key.signature(for: SHA384.hash(data: input), padding: padding).rawRepresentation)
            case .sha512: return Array(try key.signature(for: SHA512.hash(data: input), padding: padding).rawRepresentation)
            }
        case .p256(let key): return Array(try key.signature(for: SHA256.hash(data: input)).rawRepresentation)
        case .p384(let key): return Array(try key.signature(for: SHA384.hash(data: input)).rawRepresentation)
        case .p521(let key): return Array(try key.signature(for: SHA512.hash(data: input)).rawRepresentation)
        case .ed25519(let key): return Array(try key.signature(for: input))
        case .hmac(let secret): return secret.mac(input, algorithm: algorithm)
        }
    }
}
