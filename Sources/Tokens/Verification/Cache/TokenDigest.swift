#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Crypto

/// A SHA-256 digest as four words: what a ``VerifiedTokenCache`` finds its entries by
/// (``TokenKey/digest``).
struct TokenDigest: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        let digest = SHA256.hash(data: bytes)
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        digest.withUnsafeBytes { raw in
            words = (
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
        self.words = words
    }

    static func == (left: TokenDigest, right: TokenDigest) -> Bool {
        left.words.0 == right.words.0 && left.words.1 == right.words.1 && left.words.2 == right.words.2 && left.words.3 == right.words.3
    }

    func hash(into hasher: inout Hasher) {
        // The digest is uniform already: one word of it is as good a hash as all four.
        hasher.combine(words.0)
    }
}

/// How a ``VerifiedTokenCache`` knows a token by its exact UTF-8 bytes without keeping the
/// credential whole: the SHA-256 of its signature segment (the bytes after the last `.`, which
/// are never stored), and its signing input (`header.payload`, which the verified token holds
/// decoded anyway), kept and compared byte for byte with `memcmp`.
///
/// Never a `String`: `String` equality is canonical equivalence, under which two different byte
/// sequences compare equal. Two tokens share an entry only if their signing inputs are the same
/// bytes and their signatures have the same SHA-256 (collision resistant): the same token.
/// Hashing the signature alone, not the whole token, is a third of the bytes of a 1 KB RS256
/// token, and SHA-256 is most of what a cache hit costs.
struct TokenKey: Sendable {
    /// The SHA-256 of the signature segment.
    let digest: TokenDigest
    /// How many bytes precede the last `.` (the signing input); `0` without one.
    let signingInputLength: Int

    /// The key of `token`.
    init(_ token: String) {
        (digest, signingInputLength) = Self.bytes(of: token) { bytes in
            let dot = Self.lastDot(in: bytes)
            let signature = UnsafeRawBufferPointer(rebasing: bytes[(dot.map { $0 + 1 } ?? 0)...])
            return (TokenDigest(signature), dot ?? 0)
        }
    }

    /// Calls `body` with `token`'s signing input, in place.
    func withSigningInput<Result>(of token: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        Self.bytes(of: token) { body(UnsafeRawBufferPointer(rebasing: $0[..<min(signingInputLength, $0.count)])) }
    }

    /// Whether `stored` holds exactly `bytes`.
    static func equal(_ stored: [UInt8], _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard stored.count == bytes.count else { return false }
        return stored.withUnsafeBytes { stored in
            guard let left = stored.baseAddress, let right = bytes.baseAddress else { return true }
            return memcmp(left, right, bytes.count) == 0
        }
    }

    /// Calls `body` with `token`'s UTF-8 bytes, in place when the string is contiguous (every
    /// native string is).
    private static func bytes<Result>(of token: String, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = token.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        return Array(token.utf8).withUnsafeBytes(body)
    }

    /// The index of the last `.` in `bytes`, eight bytes at a time from the end (a 342-byte
    /// RS256 signature is 43 words, not 342 comparisons).
    private static func lastDot(in bytes: UnsafeRawBufferPointer) -> Int? {
        var end = bytes.count
        while end >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
            // A byte of `found` has its high bit set exactly where `word` holds a `.` (no false
            // positives: the low seven bits are added without carrying into the next byte).
            let difference = word ^ 0x2E2E_2E2E_2E2E_2E2E
            let found = ~(((difference & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | difference | 0x7F7F_7F7F_7F7F_7F7F)
            if found != 0 { return end - 8 + (63 - found.leadingZeroBitCount) / 8 }
            end -= 8
        }
        while end > 0 {
            end -= 1
            if bytes[end] == UInt8(ascii: ".") { return end }
        }
        return nil
    }
}
