/// A small CBOR writer for tests (RFC 8949, shortest-form heads): builds attestation objects,
/// COSE keys and hostile documents for Federate's reader. Test code only.
public indirect enum TestCBOR: Sendable {
    /// An integer (major type 0 or 1).
    case int(Int64)
    /// A byte string.
    case bytes([UInt8])
    /// A text string.
    case text(String)
    /// An array.
    case array([TestCBOR])
    /// A map, entries in the order given (duplicates allowed: tests need them).
    case map([TestCBORPair])
    /// `false` or `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// Bytes written as they are (a hostile fragment).
    case raw([UInt8])

    /// The encoding.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// A head of `major` type with `argument`, in its shortest form.
    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let type = major << 5
        switch argument {
        case 0..<24: return [type | UInt8(argument)]
        case 24...0xFF: return [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: return [type | 25] + bigEndian(argument, 2)
        case 0x1_0000...0xFFFF_FFFF: return [type | 26] + bigEndian(argument, 4)
        default: return [type | 27] + bigEndian(argument, 8)
        }
    }

    /// The low `count` bytes of `value`, big-endian.
    public static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A map from `(key, value)` pairs.
    public static func pairs(_ entries: [(TestCBOR, TestCBOR)]) -> TestCBOR {
        .map(entries.map { TestCBORPair($0.0, $0.1) })
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .int(let value):
            if value >= 0 { out += Self.head(0, UInt64(value)) } else { out += Self.head(1, UInt64(-(value + 1))) }
        case .bytes(let bytes):
            out += Self.head(2, UInt64(bytes.count)) + bytes
        case .text(let text):
            out += Self.head(3, UInt64(text.utf8.count)) + Array(text.utf8)
        case .array(let items):
            out += Self.head(4, UInt64(items.count))
            for item in items { item.write(to: &out) }
        case .map(let entries):
            out += Self.head(5, UInt64(entries.count))
            for entry in entries {
                entry.key.write(to: &out)
                entry.value.write(to: &out)
            }
        case .bool(let value): out.append(value ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .raw(let bytes): out += bytes
        }
    }
}

/// One entry of a ``TestCBOR`` map.
public struct TestCBORPair: Sendable {
    /// The key.
    public var key: TestCBOR
    /// The value.
    public var value: TestCBOR

    /// An entry.
    public init(_ key: TestCBOR, _ value: TestCBOR) {
        self.key = key
        self.value = value
    }
}
