import Crypto
import Foundation

/// A shared secret for HS256/HS384/HS512, configured explicitly by the caller (in OpenID
/// Connect: the client secret). Never taken from a key set or a token header.
///
/// RFC 7518 §3.2: the secret must be at least as long as the hash output (32, 48 or 64
/// bytes); a shorter secret is refused at verification time with
/// ``FederateError/Code/invalidKey``.
public struct HMACSecret: Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    /// Creates a secret from raw bytes.
    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// Creates a secret from the UTF-8 bytes of a string (how OpenID Connect uses the client secret).
    public init(utf8 secret: String) { self.bytes = Array(secret.utf8) }

    /// Redacted: secrets never appear in logs.
    public var description: String { "HMACSecret(\(bytes.count) bytes, redacted)" }

    /// Throws ``FederateError/Code/invalidKey`` when the secret is shorter than `algorithm`'s
    /// hash output (RFC 7518 §3.2).
    func checkLength(for algorithm: JWSAlgorithm) throws(FederateError) {
        guard bytes.count >= algorithm.hash.byteCount else {
            throw FederateError(
                .invalidKey, "the HMAC secret is \(bytes.count) bytes; \(algorithm.rawValue) needs at least \(algorithm.hash.byteCount)")
        }
    }

    /// Whether `signature` is the MAC of `signingInput`, compared in constant time.
    func matches(signature: UnsafeRawBufferPointer, signingInput: UnsafeRawBufferPointer, algorithm: JWSAlgorithm) -> Bool {
        algorithm.isSymmetric && ConstantTime.equals(mac(signingInput, algorithm: algorithm), signature)
    }

    /// Computes the MAC of `data`.
    func mac(_ data: some DataProtocol, algorithm: JWSAlgorithm) -> [UInt8] {
        let key = SymmetricKey(data: bytes)
        switch algorithm.hash {
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha384: return Array(HMAC<SHA384>.authenticationCode(for: data, using: key))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: data, using: key))
        }
    }
}
