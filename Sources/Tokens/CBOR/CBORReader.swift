/// A strict reader of CBOR (RFC 8949) for what WebAuthn carries: attestation objects, COSE
/// keys, and the extensions in authenticator data.
///
/// It reads definite lengths only and refuses, each with its own code: indefinite lengths,
/// tags, floating-point numbers and simple values other than `false`, `true` and `null`;
/// integers, lengths and simple values not in their shortest form (CTAP2's canonical
/// encoding); integers outside `Int64`; text that is not UTF-8; a map with a key twice; and
/// documents beyond its ``Limits`` of size, nesting and item count. An array or map may declare
/// no more elements than its remaining bytes could hold, so no declared length allocates
/// memory the input did not pay for. Nothing in the input can trap it: every length is
/// compared with the bytes left before it is used.
package struct CBORReader: Sendable {
    /// Bounds on what one document may hold.
    package struct Limits: Sendable, Hashable {
        /// The largest accepted input, in bytes.
        package var maxBytes: Int
        /// The deepest accepted nesting of arrays and maps (a top-level map is depth 1).
        package var maxDepth: Int
        /// The most items (every integer, string, array, map, key and value counts one) in a document.
        package var maxItems: Int

        /// Creates limits.
        package init(maxBytes: Int, maxDepth: Int, maxItems: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxItems = maxItems
        }

        /// WebAuthn's: 64 KiB, depth 16, 4,096 items (an attestation object with a certificate
        /// chain is a few kilobytes and a handful of items).
        package static let webAuthn = Limits(maxBytes: 64 * 1024, maxDepth: 16, maxItems: 4096)
    }

    /// The limits in force.
    package var limits: Limits

    /// Creates a reader with `limits`.
    package init(limits: Limits = .webAuthn) {
        self.limits = limits
    }

    /// Reads `bytes` as exactly one CBOR item; ``FederateError/Code/cborTrailingBytes`` when
    /// bytes follow it.
    package func decode(_ bytes: [UInt8]) throws(FederateError) -> CBORValue {
        let (value, byteCount) = try decodePrefix(bytes[...])
        guard byteCount == bytes.count else {
            throw FederateError(.cborTrailingBytes, "\(bytes.count - byteCount) bytes follow the CBOR item")
        }
        return value
    }

    /// Reads the one CBOR item at the start of `bytes`: the item and how many bytes it took
    /// (authenticator data holds a COSE key followed by the extensions map).
    package func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(FederateError) -> (value: CBORValue, byteCount: Int) {
        guard bytes.count <= limits.maxBytes else {
            throw FederateError(.cborTooLarge, "the CBOR input has \(bytes.count) bytes; at most \(limits.maxBytes) are read")
        }
        var cursor = Cursor(bytes: bytes, position: bytes.startIndex, limits: limits)
        let value = try cursor.item(depth: 1)
        return (value, cursor.position - bytes.startIndex)
    }
}

extension CBORReader {
    /// The reading position in one document.
    private struct Cursor {
        let bytes: ArraySlice<UInt8>
        var position: Int
        let limits: Limits
        var items = 0

        /// The bytes not read yet.
        var remaining: Int { bytes.endIndex - position }

        mutating func byte() throws(FederateError) -> UInt8 {
            guard position < bytes.endIndex else { throw FederateError(.cborTruncated, "the CBOR item ends early") }
            defer { position += 1 }
            return bytes[position]
        }

        /// `count` bytes, big-endian, as an unsigned integer (count ≤ 8).
        mutating func unsigned(byteCount count: Int) throws(FederateError) -> UInt64 {
            guard remaining >= count else { throw FederateError(.cborTruncated, "the CBOR item ends early") }
            var value: UInt64 = 0
            for index in position..<(position + count) { value = value << 8 | UInt64(bytes[index]) }
            position += count
            return value
        }

        /// The argument of a head whose additional information is `info` (0...27), in its
        /// shortest form.
        mutating func argument(_ info: UInt8) throws(FederateError) -> UInt64 {
            let byteCount: Int
            let smallest: UInt64
            switch info {
            case 0..<24: return UInt64(info)
            case 24: (byteCount, smallest) = (1, 24)
            case 25: (byteCount, smallest) = (2, 0x100)
            case 26: (byteCount, smallest) = (4, 0x1_0000)
            case 27: (byteCount, smallest) = (8, 0x1_0000_0000)
            default: throw FederateError(.cborMalformed, "reserved additional information \(info)")
            }
            let value = try unsigned(byteCount: byteCount)
            guard value >= smallest else {
                throw FederateError(.cborNonCanonical, "a CBOR argument is not in its shortest form")
            }
            return value
        }

        /// Counts one item against the limit.
        mutating func count(_ added: Int = 1) throws(FederateError) {
            guard added <= limits.maxItems - items else {
                throw FederateError(.cborTooManyItems, "the CBOR document holds more than \(limits.maxItems) items")
            }
            items += added
        }

        /// `length` bytes of content, after checking they are there.
        mutating func content(_ length: UInt64) throws(FederateError) -> ArraySlice<UInt8> {
            guard length <= UInt64(remaining) else {
                throw FederateError(.cborTruncated, "a CBOR string declares \(length) bytes; \(remaining) remain")
            }
            let end = position + Int(length)
            defer { position = end }
            return bytes[position..<end]
        }

        /// The number of elements an array or map declares, checked against the bytes left
        /// (each takes at least one) and the items the limit leaves, before anything is allocated.
        func elementCount(_ declared: UInt64, perEntry: Int) throws(FederateError) -> Int {
            guard declared <= UInt64(remaining / perEntry) else {
                throw FederateError(.cborTruncated, "a CBOR array or map declares \(declared) elements; its bytes end before them")
            }
            let elements = Int(declared)
            guard elements <= (limits.maxItems - items) / perEntry else {
                throw FederateError(.cborTooManyItems, "the CBOR document holds more than \(limits.maxItems) items")
            }
            return elements
        }

        mutating func item(depth: Int) throws(FederateError) -> CBORValue {
            try count()
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            switch major {
            case 6: throw FederateError(.cborUnsupportedItem, "CBOR tags are not accepted")
            case 7: return try simple(info)
            default: break
            }
            if info == 31 {
                if major >= 2 { throw FederateError(.cborIndefiniteLength, "indefinite-length CBOR items are not accepted") }
                throw FederateError(.cborMalformed, "an integer with additional information 31")
            }
            let argument = try self.argument(info)
            switch major {
            case 0:
                guard argument <= UInt64(Int64.max) else {
                    throw FederateError(.cborIntegerOutOfRange, "a CBOR unsigned integer exceeds Int64.max")
                }
                return .integer(Int64(argument))
            case 1:
                guard argument <= UInt64(Int64.max) else {
                    throw FederateError(.cborIntegerOutOfRange, "a CBOR negative integer is below Int64.min")
                }
                return .integer(-1 - Int64(argument))
            case 2:
                return .bytes(Array(try content(argument)))
            case 3:
                let text = try content(argument)
                guard String(validating: text, as: UTF8.self) != nil else {
                    throw FederateError(.cborInvalidUTF8, "a CBOR text string is not valid UTF-8")
                }
                return .text(Array(text))
            case 4:
                guard depth <= limits.maxDepth else { throw tooDeep }
                let elements = try elementCount(argument, perEntry: 1)
                var array = [CBORValue]()
                array.reserveCapacity(elements)
                for _ in 0..<elements { array.append(try item(depth: depth + 1)) }
                return .array(array)
            default:
                guard depth <= limits.maxDepth else { throw tooDeep }
                let entries = try elementCount(argument, perEntry: 2)
                var map = [CBORMapEntry]()
                map.reserveCapacity(entries)
                var keys = Set<CBORValue>(minimumCapacity: entries)
                for _ in 0..<entries {
                    let key = try item(depth: depth + 1)
                    guard keys.insert(key).inserted else {
                        throw FederateError(.cborDuplicateKey, "a CBOR map has the same key twice")
                    }
                    map.append(CBORMapEntry(key: key, value: try item(depth: depth + 1)))
                }
                return .map(map)
            }
        }

        var tooDeep: FederateError {
            FederateError(.cborTooDeep, "CBOR arrays and maps are nested deeper than \(limits.maxDepth)")
        }

        /// Major type 7: `false`, `true`, `null`; everything else is refused.
        mutating func simple(_ info: UInt8) throws(FederateError) -> CBORValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 24:
                let value = try byte()
                guard value >= 32 else {
                    throw FederateError(.cborMalformed, "a simple value below 32 encoded in two bytes")
                }
                throw FederateError(.cborUnsupportedItem, "CBOR simple value \(value) is not accepted")
            case 25, 26, 27: throw FederateError(.cborUnsupportedItem, "CBOR floating-point numbers are not accepted")
            case 28, 29, 30: throw FederateError(.cborMalformed, "reserved additional information \(info)")
            case 31: throw FederateError(.cborMalformed, "a CBOR break code outside an indefinite-length item")
            default: throw FederateError(.cborUnsupportedItem, "CBOR simple value \(info) is not accepted")
            }
        }
    }
}
