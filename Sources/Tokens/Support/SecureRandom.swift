/// Unguessable values from the system CSPRNG.
package enum SecureRandom {
    /// `byteCount` random bytes (none for a count below one), drawn eight at a time:
    /// `SystemRandomNumberGenerator` asks the kernel on every draw (`getrandom` on Linux), so
    /// a byte per draw cost a system call per byte.
    package static func bytes(_ byteCount: Int) -> [UInt8] {
        let count = max(byteCount, 0)
        var generator = SystemRandomNumberGenerator()
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var offset = 0
            while offset < count {
                var word = generator.next()
                let take = min(8, count - offset)
                for index in 0..<take {
                    buffer[offset + index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                }
                offset += take
            }
            initialized = count
        }
    }

    /// A base64url token of `byteCount` random bytes (32 bytes = 256 bits, 43 characters).
    package static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
