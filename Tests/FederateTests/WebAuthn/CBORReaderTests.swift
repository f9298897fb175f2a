import FederateTestSupport
import Testing
@testable import FederateTokens

/// The CBOR reader (RFC 8949) WebAuthn reads attestation objects and COSE keys with: what it
/// reads, and every hostile document refused with its code, none trapping.
@Suite("CBOR reader")
struct CBORReaderTests {
    func code(_ bytes: [UInt8], limits: CBORReader.Limits = .webAuthn) -> FederateError.Code? {
        do {
            _ = try CBORReader(limits: limits).decode(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func readsWhatWebAuthnUses() throws {
        let document = TestCBOR.pairs([
            (.text("fmt"), .text("none")), (.int(-1), .int(Int64.min)), (.int(3), .int(Int64.max)), (.text("b"), .bytes([1, 2, 3])),
            (.text("list"), .array([.bool(true), .bool(false), .null])), (.text("é"), .map([])),
        ])
        let value = try CBORReader().decode(document.encoded)
        #expect(value[text: "fmt"]?.textValue == "none")
        #expect(value[label: -1] == .integer(.min))
        #expect(value[label: 3] == .integer(.max))
        #expect(value[text: "b"]?.bytesValue == [1, 2, 3])
        #expect(value[text: "list"] == .array([.bool(true), .bool(false), .null]))
        #expect(value[text: "é"] == .map([]))
        // Known encodings (RFC 8949 Appendix A).
        #expect(try CBORReader().decode([0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .integer(.min))
        #expect(try CBORReader().decode([0x19, 0x03, 0xE8]) == .integer(1000))
        #expect(try CBORReader().decode([0x38, 0x63]) == .integer(-100))
    }

    @Test func reportsTheBytesAnItemTakes() throws {
        let bytes = TestCBOR.pairs([(.int(1), .int(2))]).encoded + TestCBOR.map([]).encoded + [0xFF]
        let (first, count) = try CBORReader().decodePrefix(bytes[...])
        #expect(first[label: 1] == .integer(2))
        #expect(count == 3)
        let (second, secondCount) = try CBORReader().decodePrefix(bytes[3...])
        #expect(second == .map([]) && secondCount == 1)
        #expect(code(bytes) == .cborTrailingBytes)
    }

    @Test func refusesIntegersBeyondInt64() {
        #expect(code([0x1B, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .cborIntegerOutOfRange)
        #expect(code([0x1B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .cborIntegerOutOfRange)
        #expect(code([0x3B, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .cborIntegerOutOfRange)
        #expect(code([0x3B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .cborIntegerOutOfRange)
    }

    @Test func refusesHugeDeclaredLengthsWithoutAllocating() {
        let huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(code([0x5B] + huge) == .cborTruncated)  // byte string of 2^64-1 bytes
        #expect(code([0x7B] + huge) == .cborTruncated)  // text string
        #expect(code([0x9B] + huge) == .cborTruncated)  // array of 2^64-1 items
        #expect(code([0xBB] + huge) == .cborTruncated)  // map
        #expect(code([0x9A, 0x00, 0x01, 0x00, 0x00] + [UInt8](repeating: 0, count: 10)) == .cborTruncated)
        // 5,000 items that are there: beyond the 4,096-item limit.
        #expect(code(TestCBOR.head(4, 5000) + [UInt8](repeating: 0, count: 5000)) == .cborTooManyItems)
    }

    @Test func refusesTruncatedItems() {
        for bytes: [UInt8] in [[], [0x18], [0x19, 0x01], [0x1A, 0, 0, 1], [0x43, 1, 2], [0x82, 0x01], [0xA1, 0x01], [0x63, 0x61]] {
            #expect(code(bytes) == .cborTruncated, "\(bytes)")
        }
    }

    @Test func refusesIndefiniteLengths() {
        for bytes: [UInt8] in [[0x5F, 0x41, 0x00, 0xFF], [0x7F, 0xFF], [0x9F, 0xFF], [0xBF, 0xFF]] {
            #expect(code(bytes) == .cborIndefiniteLength, "\(bytes)")
        }
        #expect(code([0x1F]) == .cborMalformed)
        #expect(code([0x3F]) == .cborMalformed)
        #expect(code([0xFF]) == .cborMalformed)  // a break outside an indefinite item
        #expect(code([0x1C]) == .cborMalformed)  // reserved additional information
    }

    @Test func refusesDuplicateKeys() {
        #expect(code(TestCBOR.pairs([(.int(1), .int(2)), (.int(1), .int(2))]).encoded) == .cborDuplicateKey)
        #expect(code(TestCBOR.pairs([(.text("fmt"), .int(1)), (.text("fmt"), .text("none"))]).encoded) == .cborDuplicateKey)
        // Keys compare byte for byte: KELVIN SIGN is not K, so these are two keys.
        #expect(code(TestCBOR.pairs([(.text("K"), .int(1)), (.text("\u{212A}"), .int(2))]).encoded) == nil)
        // A duplicate nested deeper is found too.
        let inner = TestCBOR.pairs([(.int(-2), .bytes([])), (.int(-2), .bytes([]))])
        #expect(code(TestCBOR.pairs([(.int(1), inner)]).encoded) == .cborDuplicateKey)
    }

    @Test func refusesDeepNesting() {
        let deep = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        #expect(code(deep) == .cborTooDeep)
        // {0: {0: {0: ... 0}}}
        let maps = [UInt8](Array(repeating: [UInt8]([0xA1, 0x00]), count: 10_000).joined()) + [0x00]
        #expect(code(maps) == .cborTooDeep)
        let sixteen = [UInt8](repeating: 0x81, count: 16) + [0x00]
        #expect(code(sixteen) == nil)
        #expect(code([0x81] + sixteen) == .cborTooDeep)
    }

    @Test func refusesTagsFloatsAndOtherSimpleValues() {
        #expect(code([0xC0, 0x60]) == .cborUnsupportedItem)  // tag 0
        #expect(code([0xD8, 0x18, 0x40]) == .cborUnsupportedItem)  // tag 24
        #expect(code([0xF9, 0x3C, 0x00]) == .cborUnsupportedItem)  // half float 1.0
        #expect(code([0xFB, 0, 0, 0, 0, 0, 0, 0, 0]) == .cborUnsupportedItem)
        #expect(code([0xF7]) == .cborUnsupportedItem)  // undefined
        #expect(code([0xF0]) == .cborUnsupportedItem)  // simple value 16
        #expect(code([0xF8, 0xFF]) == .cborUnsupportedItem)  // simple value 255
        #expect(code([0xF8, 0x14]) == .cborMalformed)  // false in two bytes: not well-formed
    }

    @Test func refusesNonCanonicalHeads() {
        #expect(code([0x18, 0x05]) == .cborNonCanonical)
        #expect(code([0x19, 0x00, 0xFF]) == .cborNonCanonical)
        #expect(code([0x1A, 0x00, 0x00, 0xFF, 0xFF]) == .cborNonCanonical)
        #expect(code([0x1B, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]) == .cborNonCanonical)
        #expect(code([0x58, 0x01, 0xAA]) == .cborNonCanonical)
        #expect(code([0x18, 0x18]) == nil)
    }

    @Test func refusesInvalidUTF8() {
        for text: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            #expect(code(TestCBOR.head(3, UInt64(text.count)) + text) == .cborInvalidUTF8, "\(text)")
        }
    }

    @Test func enforcesSizeAndItemLimits() {
        let limits = CBORReader.Limits(maxBytes: 64, maxDepth: 16, maxItems: 8)
        #expect(code(TestCBOR.bytes([UInt8](repeating: 1, count: 100)).encoded, limits: limits) == .cborTooLarge)
        #expect(code(TestCBOR.array((0..<8).map { .int($0) }).encoded, limits: limits) == .cborTooManyItems)
        #expect(code(TestCBOR.array((0..<7).map { .int($0) }).encoded, limits: limits) == nil)
    }

    /// Every prefix and every single-byte change of a real attestation object ends in a value
    /// or a typed error: nothing traps.
    @Test func everyTruncationAndByteFlipOfAnAttestationObjectIsHandled() {
        let passkey = SoftwarePasskey.es256()
        let ceremony = PasskeyCeremony.registration(
            challenge: Array(repeating: 7, count: 32), origin: "https://example.com", rpID: "example.com")
        let authData = passkey.authenticatorData(ceremony)
        let object = TestCBOR.pairs([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))])
            .encoded
        #expect(code(object) == nil)
        for end in 0..<object.count {
            #expect(code(Array(object[0..<end])) == .cborTruncated)
        }
        for index in object.indices {
            var changed = object
            changed[index] ^= 0xFF
            _ = code(changed)
            _ = try? AuthenticatorData(Array(authData.prefix(index)))
        }
    }
}
