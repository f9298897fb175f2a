/// Strict base64url (RFC 4648 §5) without padding, as JOSE requires (RFC 7515 §2).
///
/// Decoding rejects padding, whitespace, characters outside the URL-safe alphabet, an
/// impossible length (4n+1) and non-canonical encodings (unused trailing bits set), so
/// every byte string has exactly one accepted encoding.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's six bits (`0x40` for a byte outside the alphabet): the decoding table.
    ///
    /// Written out rather than built from ``alphabet``: a global array of literals is emitted
    /// as a static object, so reading it costs no `swift_once` (every token's segments are
    /// decoded with it, and a lazy table's accessor was called on every use). Sixteen bytes a
    /// row, from byte 0; `Base64URLTests` checks it against ``alphabet``.
    private static let sextets: [UInt8] = [
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x3E, 0x40, 0x40,
        0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x3B, 0x3C, 0x3D, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
        0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x40, 0x40, 0x40, 0x40, 0x3F,
        0x40, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
        0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0x30, 0x31, 0x32, 0x33, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
        0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
    ]

    /// The mark ``sextets`` gives a byte outside the alphabet (no six-bit value has it).
    private static let outsideAlphabet: UInt8 = 0x40

    /// Encodes bytes without padding.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            if let b1 {
                out.append(alphabet[Int((b1 & 0x0F) << 2 | (b2 ?? 0) >> 6)])
                if let b2 { out.append(alphabet[Int(b2 & 0x3F)]) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes the UTF-8 bytes of a string without padding.
    package static func encode(_ string: String) -> String {
        encode(Array(string.utf8))
    }

    /// Decodes strictly; `nil` for anything that is not canonical unpadded base64url.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(bytes: $0) }
    }

    /// Whether `input` is canonical unpadded base64url (what ``decode(bytes:)`` accepts),
    /// checked without decoding: the caches of decoded segments check it before any lookup.
    static func isCanonical(_ input: some Collection<UInt8>) -> Bool {
        let remainder = input.count % 4
        guard remainder != 1 else { return false }
        var last: UInt8 = 0
        for byte in input {
            last = sextets[Int(byte)]
            guard last & outsideAlphabet == 0 else { return false }
        }
        return last & unusedBits(remainder) == 0
    }

    /// The low bits of a segment's last character that carry no data when the segment ends
    /// `remainder` characters into a quantum (four after two characters, two after three):
    /// they must be zero, so every byte string has one spelling.
    private static func unusedBits(_ remainder: Int) -> UInt8 {
        switch remainder {
        case 2: 0x0F
        case 3: 0x03
        default: 0
        }
    }

    /// Decodes a buffer of ASCII bytes strictly; `nil` for anything non-canonical.
    package static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let capacity = decodedCount(input.count) else { return nil }
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            if let base = buffer.baseAddress { valid = decode(input, into: base) }
            initialized = capacity
        }
        return valid ? out : nil
    }

    /// How many bytes `count` base64url characters decode to; `nil` for an impossible length (4n+1).
    static func decodedCount(_ count: Int) -> Int? {
        let remainder = count % 4
        guard remainder != 1 else { return nil }
        return count / 4 * 3 + max(0, remainder - 1)
    }

    /// Decodes `input` into `output`, which has room for ``decodedCount(_:)`` bytes; `false`
    /// when `input` is not canonical unpadded base64url (its length is checked by the caller).
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) -> Bool {
        let count = input.count
        let remainder = count % 4
        return sextets.withUnsafeBufferPointer { table -> Bool in
            func sextet(_ index: Int) -> UInt32 { UInt32(table[Int(input[index])]) }
            var i = 0, o = 0
            let fullEnd = count - remainder
            // Any character outside the alphabet sets the mark's bit here.
            var marks: UInt32 = 0
            while i < fullEnd {
                let a = sextet(i), b = sextet(i + 1), c = sextet(i + 2), d = sextet(i + 3)
                marks |= a | b | c | d
                let group = a << 18 | b << 12 | c << 6 | d
                output[o] = UInt8(truncatingIfNeeded: group >> 16)
                output[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
                output[o + 2] = UInt8(truncatingIfNeeded: group)
                i += 4
                o += 3
            }
            // The last character's unused bits set the mark too.
            let unused = UInt32(unusedBits(remainder))
            if remainder == 2 {
                let a = sextet(i), b = sextet(i + 1)
                marks |= a | b | (b & unused == 0 ? 0 : UInt32(outsideAlphabet))
                output[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
            } else if remainder == 3 {
                let a = sextet(i), b = sextet(i + 1), c = sextet(i + 2)
                marks |= a | b | c | (c & unused == 0 ? 0 : UInt32(outsideAlphabet))
                output[o] = UInt8(truncatingIfNeeded: a << 2 | b >> 4)
                output[o + 1] = UInt8(truncatingIfNeeded: b << 4 | c >> 2)
            }
            return marks & UInt32(outsideAlphabet) == 0
        }
    }
}
