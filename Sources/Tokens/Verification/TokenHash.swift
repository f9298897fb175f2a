import Crypto

/// `at_hash` and `c_hash` (OpenID Connect Core §3.1.3.6, §3.3.2.11): the base64url of the
/// left half of the hash of the token or code, with the hash of the ID token's `alg`.
package enum TokenHash {
    /// Computes the half-hash of `value` for `algorithm`.
    package static func compute(_ value: String, algorithm: JWSAlgorithm) -> String {
        let bytes = Array(value.utf8)
        let digest: [UInt8]
        switch algorithm.hash {
        case .sha256: digest = Array(SHA256.hash(data: bytes))
        case .sha384: digest = Array(SHA384.hash(data: bytes))
        case .sha512: digest = Array(SHA512.hash(data: bytes))
        }
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    /// Whether `claim` is the half-hash of `value`, compared in constant time.
    static func matches(_ claim: String, value: String, algorithm: JWSAlgorithm) -> Bool {
        ConstantTime.equals(claim, compute(value, algorithm: algorithm))
    }
}
