import Crypto

/// JWK SHA-256 thumbprints (RFC 7638): the base64url of the SHA-256 of the key's required
/// members, in lexicographic order, as compact JSON. DPoP binds tokens to a key with it
/// (`cnf.jkt` and `dpop_jkt`, RFC 9449 §6).
///
/// The required members: `e`, `kty`, `n` for RSA; `crv`, `kty`, `x`, `y` for EC; `crv`,
/// `kty`, `x` for OKP. Any other member (`kid`, `alg`, `use`) is left out, so one key has one
/// thumbprint however it is labelled.
enum JWKThumbprint {
    /// The thumbprint of a JWK object. ``FederateError/Code/invalidKey`` when `kty` is not
    /// RSA, EC or OKP, or a required member is missing or not a string.
    static func sha256(of jwk: [String: JSONValue]) throws(FederateError) -> String {
        guard case .string(let keyType)? = jwk["kty"] else { throw FederateError(.invalidKey, "JWK lacks a string 'kty'") }
        let names: [String]
        switch keyType {
        case "RSA": names = ["e", "kty", "n"]
        case "EC": names = ["crv", "kty", "x", "y"]
        case "OKP": names = ["crv", "kty", "x"]
        default: throw FederateError(.invalidKey, "no thumbprint for JWK 'kty' '\(keyType.prefix(16))'")
        }
        var required: [String: JSONValue] = [:]
        for name in names {
            guard case .string(let value)? = jwk[name] else { throw FederateError(.invalidKey, "JWK lacks a string '\(name)'") }
            required[name] = .string(value)
        }
        // JSONSerializer writes sorted keys and no whitespace: RFC 7638 §3's canonical form.
        return Base64URL.encode(Array(SHA256.hash(data: JSONSerializer.bytes(.object(required)))))
    }
}

extension JWSSigningKey {
    /// The RFC 7638 SHA-256 thumbprint of the public key; `nil` for an HMAC secret.
    package var thumbprint: String? {
        guard let jwk = publicJWK() else { return nil }
        return try? JWKThumbprint.sha256(of: jwk)
    }
}
