// MARK: - CBOR

extension FederateError.Code {
    /// A CBOR item (RFC 8949) is not well-formed: a reserved additional-information value, a
    /// break code outside an indefinite-length item, or a simple value encoded in two bytes
    /// below 32.
    public static let cborMalformed: Self = "cbor_malformed"
    /// A CBOR item ends before its head or its content does, or an array or map declares more
    /// elements than its remaining bytes could hold.
    public static let cborTruncated: Self = "cbor_truncated"
    /// A CBOR document is larger than the reader accepts.
    public static let cborTooLarge: Self = "cbor_too_large"
    /// CBOR arrays and maps are nested deeper than the reader accepts (16 levels for WebAuthn).
    public static let cborTooDeep: Self = "cbor_too_deep"
    /// A CBOR document holds more items than the reader accepts (4,096 for WebAuthn).
    public static let cborTooManyItems: Self = "cbor_too_many_items"
    /// A CBOR map has the same key twice (RFC 8949 §5.6: such a map is not valid).
    public static let cborDuplicateKey: Self = "cbor_duplicate_key"
    /// A CBOR string, array or map has an indefinite length; only definite lengths are read.
    public static let cborIndefiniteLength: Self = "cbor_indefinite_length"
    /// A CBOR item of a kind the reader refuses: a tag, a floating-point number, or a simple
    /// value other than `false`, `true` and `null`.
    public static let cborUnsupportedItem: Self = "cbor_unsupported_item"
    /// A CBOR integer, length or simple value is not in its shortest form (CTAP2's canonical
    /// encoding, which authenticators use).
    public static let cborNonCanonical: Self = "cbor_non_canonical"
    /// A CBOR integer does not fit a signed 64-bit integer.
    public static let cborIntegerOutOfRange: Self = "cbor_integer_out_of_range"
    /// A CBOR text string is not valid UTF-8.
    public static let cborInvalidUTF8: Self = "cbor_invalid_utf8"
    /// Bytes follow the CBOR item where the item was to be the whole document.
    public static let cborTrailingBytes: Self = "cbor_trailing_bytes"
}
