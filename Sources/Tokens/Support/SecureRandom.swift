/// Unguessable values from the system CSPRNG.
package enum SecureRandom {
    /// `byteCount` random bytes.
    package static func bytes(_ byteCount: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A base64url token of `byteCount` random bytes (32 bytes = 256 bits, 43 characters).
    package static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
