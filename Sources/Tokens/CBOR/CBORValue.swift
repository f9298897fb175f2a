/// A CBOR data item (RFC 8949) as ``CBORReader`` reads it: the kinds WebAuthn uses, nothing else.
///
/// Text strings keep their UTF-8 bytes (validated), so map keys compare byte for byte: no
/// Unicode normalisation can make two different keys equal.
package indirect enum CBORValue: Sendable, Hashable {
    /// A major type 0 or 1 integer that fits `Int64`.
    case integer(Int64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A text string (major type 3): its bytes, valid UTF-8.
    case text([UInt8])
    /// An array (major type 4).
    case array([CBORValue])
    /// A map (major type 5), its entries in document order, no key twice.
    case map([CBORMapEntry])
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null

    /// The integer, if this is one.
    package var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a byte string.
    package var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text, if this is a text string.
    package var textValue: String? {
        if case .text(let value) = self { return String(decoding: value, as: UTF8.self) }
        return nil
    }

    /// The entries, if this is a map.
    package var mapValue: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value of the map entry whose key is `key`, if this is a map holding one.
    package subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries where entry.key == key { return entry.value }
        return nil
    }

    /// The value of the map entry whose key is the text `key` (its exact UTF-8 bytes).
    package subscript(text key: String) -> CBORValue? {
        self[.text(Array(key.utf8))]
    }

    /// The value of the map entry whose key is the integer `key` (COSE labels).
    package subscript(label key: Int64) -> CBORValue? {
        self[.integer(key)]
    }
}

/// One entry of a CBOR map.
package struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    package var key: CBORValue
    /// The value.
    package var value: CBORValue

    /// Creates an entry.
    package init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}
