@testable import FederateServer
import Testing

/// The token68 check of `Authorization: SCHEME TOKEN` (RFC 7235 §2.1), byte for byte against
/// the grammar written out plainly.
@Suite("Authorization token68")
struct AuthorizationCredentialsTests {
    /// ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/".
    private static func inGrammar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default:
            [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/")].contains(
                byte)
        }
    }

    @Test func everyByteIsClassifiedAsTheGrammarSays() {
        for value in 0...255 {
            let byte = UInt8(value)
            let text = String(decoding: [0x61, byte, 0x62], as: UTF8.self)  // Not ASCII: no longer one byte, refused either way.
            #expect(AuthorizationCredentials.isToken68(Substring(text)) == Self.inGrammar(byte), "byte \(value)")
        }
    }

    @Test func paddingOnlyAtTheEnd() {
        #expect(AuthorizationCredentials.isToken68("abc=="))
        #expect(!AuthorizationCredentials.isToken68("ab=c"))
        #expect(!AuthorizationCredentials.isToken68("=="))
        #expect(!AuthorizationCredentials.isToken68("abc\u{212A}"))  // Kelvin sign, a look-alike of K
    }
}
