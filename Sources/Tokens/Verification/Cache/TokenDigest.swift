import Crypto

/// The SHA-256 of a token's exact UTF-8 bytes: what a ``VerifiedTokenCache`` is keyed on.
///
/// Never a `String`: `String` equality is canonical equivalence, under which two different
/// byte sequences (and so two different signatures) can compare equal. SHA-256 is collision
/// resistant, so two tokens share a digest only if they are the same bytes.
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

    /// The digest of `token`'s UTF-8 bytes.
    init(_ token: String) {
        if let digest = token.utf8.withContiguousStorageIfAvailable({ Self(UnsafeRawBufferPointer($0)) }) {
            self = digest
        } else {
            self = Array(token.utf8).withUnsafeBytes { Self($0) }
        }
    }

    static func == (left: TokenDigest, right: TokenDigest) -> Bool {
        left.words.0 == right.words.0 && left.words.1 == right.words.1 && left.words.2 == right.words.2 && left.words.3 == right.words.3
    }

    func hash(into hasher: inout Hasher) {
        // The digest is uniform already: one word of it is as good a hash as all four.
        hasher.combine(words.0)
    }
}
