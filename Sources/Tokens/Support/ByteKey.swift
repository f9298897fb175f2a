#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes as a dictionary key: hashed in bulk and compared with `memcmp`, never through a
/// `String`, whose equality is canonical equivalence (`"\u{212A}"`, KELVIN SIGN, equals `"K"`).
///
/// The verifiers' caches of untrusted input (``JOSEHeaderCache``, ``DPoPKeyCache``) key on
/// it, so an entry is found only by the very bytes it was computed from.
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBufferPointer { a in
            rhs.bytes.withUnsafeBufferPointer { b in
                guard let left = a.baseAddress, let right = b.baseAddress else { return true }
                return memcmp(left, right, a.count) == 0
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
